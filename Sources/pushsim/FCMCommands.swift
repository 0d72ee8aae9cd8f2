import ConnectionGuards
import ArgumentParser
import PushSim

struct FCMCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fcm",
        abstract: "Play Google's FCM for web-push clients: check-in, registrations, MCS over TLS, and the v1 send API.",
        subcommands: [Serve.self])

    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve FCM's registration and send endpoints (under /fcm/) and MCS over TLS.",
            discussion: "Prints 'pushsim listening on http://HOST:PORT' and 'pushsim mcs listening on HOST:PORT' once "
                + "listening, then one line per event. SIGTERM or SIGINT stops it (exit 0). State is in memory, or in "
                + "--state's file, which a restart reads: registrations and unacknowledged messages survive it.")

        @Option(help: ArgumentHelp("Address of the HTTP endpoints; port 0 picks a free port.", valueName: "host:port"))
        var listen: String

        @Option(name: .customLong("mcs-listen"), help: ArgumentHelp("Address of MCS (TLS).", valueName: "host:port"))
        var mcsListen: String

        @Option(name: .customLong("tls-cert"), help: ArgumentHelp("PEM certificate chain MCS presents.", valueName: "file"))
        var tlsCert: String

        @Option(name: .customLong("tls-key"), help: ArgumentHelp("PEM private key of --tls-cert.", valueName: "file"))
        var tlsKey: String

        @Option(help: ArgumentHelp("Keep registrations and unacknowledged messages in this file across restarts.",
                                   valueName: "file"))
        var state: String?

        func validate() throws {
            for (flag, value) in [("--listen", listen), ("--mcs-listen", mcsListen)] where SimAddress(parsing: value) == nil {
                throw ValidationError("\(flag): expected HOST:PORT (port 0-65535, IPv6 in brackets), got '\(value)'")
            }
        }

        func run() async throws {
            do {
                try await FCMEmulatorServer.run(listen: SimAddress(parsing: listen)!, mcsListen: SimAddress(parsing: mcsListen)!,
                                                certificateFile: tlsCert, privateKeyFile: tlsKey, stateFile: state)
            } catch let error as ListenError {
                throw CommandFailure(message: "\(error)")
            } catch where ListenError.isBindFailure(error) {
                let http = SimAddress(parsing: listen)!
                throw CommandFailure(message: "\(ListenError(host: http.host, port: http.port, program: "pushsim", change: "--listen HOST:PORT", error))")
            } catch {
                throw CommandFailure(message: "the FCM emulator stopped: \(error)")
            }
        }
    }
}
