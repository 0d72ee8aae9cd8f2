import ArgumentParser
import ControlClient
import Foundation
import UnifiedPushBus
import UnifiedPushDistributor

extension WebPush {
    struct Distributor: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Be the session's UnifiedPush distributor: apps register here and get their messages (runs until stopped).",
            discussion: """
                Owns org.unifiedpush.Distributor.pushagent on the session bus and answers org.unifiedpush.Distributor1 \
                and Distributor2: an app's Register makes a subscription in pushagentd (and at the relay) and the app \
                gets its endpoint through NewEndpoint; each message is handed to the app's Message unchanged (the app \
                decrypts it), D-Bus-activating the app when it is not running, in order, and kept in pushagentd until \
                the app took it. Unregister, or an app neither running nor installed for --forget-after hours, removes \
                the subscription (its senders get 410). Its log lines go to stderr. Exit 6 when there is no session bus, \
                5 when another distributor owns the name. The user unit pushagent-unifiedpush.service runs it \
                (systemctl --user enable --now pushagent-unifiedpush).
                """)
        @Option(help: GlobalOptions.socketHelp) var socket: String?
        @Option(help: "Hours an app may be neither running nor installed before its registration is removed.")
        var forgetAfter: Double = 24
        @Option(help: "Seconds between checks of the registrations: apps gone, endpoints the relay has forgotten.")
        var checkEvery: Double = 60

        func validate() throws {
            guard forgetAfter > 0 else { throw ValidationError("--forget-after must be a positive number of hours") }
            guard checkEvery >= 0.1 else { throw ValidationError("--check-every must be at least 0.1 seconds") }
        }

        func run() async throws {
            let log: @Sendable (String) -> Void = { line in
                FileHandle.standardError.write(Data(("pushctl webpush distributor: " + line + "\n").utf8))
            }
            let bus: DistributorBus
            do {
                bus = try await DistributorBus.connect()
            } catch {
                Output.error("webpush distributor: \(error)")
                throw ExitCode((error as? DistributorBusError)?.nameTaken == true ? ExitStatus.conflictOrExpired : ExitStatus.noSessionBus)
            }
            var settings = UnifiedPushDistributor.Settings()
            settings.forgetAfter = .seconds(forgetAfter * 3600)
            settings.reconcileEvery = .seconds(checkEvery)
            let distributor = UnifiedPushDistributor(bus: bus, client: ControlClient(resolving: socket), settings: settings, log: log)
            log("serving \(DistributorBus.defaultName) on the session bus")
            let stops = [SIGTERM, SIGINT].map { (number: Int32) -> any DispatchSourceSignal in
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number)
                source.setEventHandler { bus.stop() }
                source.resume()
                return source
            }
            defer { stops.forEach { $0.cancel() } }
            await distributor.run()
            log("the session bus connection ended")
        }
    }
}
