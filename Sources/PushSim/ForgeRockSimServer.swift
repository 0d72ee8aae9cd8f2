import Foundation
import Hummingbird
import Logging

/// `pushsim forgerock serve`: AM's push endpoints plus the admin API, on one HTTP listener.
public enum ForgeRockSimServer {
    /// Runs until SIGTERM or SIGINT, then returns. Prints `pushsim listening on http://HOST:PORT` (the real port)
    /// once listening, then one line per event. Logs go to stderr.
    public static func run(_ configuration: SimConfiguration, logLevel: Logger.Level = .info) async throws {
        var logger = Logger(label: "pushsim", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = logLevel
        let events = SimEvents()
        let sim = ForgeRockSim(relay: RelaySender(relayURL: configuration.relayURL, project: configuration.project,
                                                  senderKey: configuration.senderKey),
                               events: events)
        let router = Router()
        AMRoutes(sim: sim).add(to: router)
        AdminRoutes(sim: sim).add(to: router)
        let listen = configuration.listen
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(listen.host, port: listen.port), serverName: "pushsim"),
            onServerRunning: { channel in
                let bound = SimAddress(host: listen.host, port: channel.localAddress?.port ?? listen.port)
                await sim.setPublicURL(configuration.publicURL ?? "http://\(bound)")
                // Harnesses wait for exactly this line to learn the port.
                FileHandle.standardOutput.write(Data("pushsim listening on http://\(bound)\n".utf8))
            },
            logger: logger)
        try await app.runService()
    }
}
