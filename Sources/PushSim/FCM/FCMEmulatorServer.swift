import Foundation
import Hummingbird
import Logging

/// `pushsim fcm serve`: Google's FCM as a web-push client and a sender see it. Its HTTP services on one listener
/// (FCMEmulatorRoutes), MCS over TLS on another.
public enum FCMEmulatorServer {
    public struct Configuration: Sendable {
        public var listen: SimAddress
        public var mcsListen: SimAddress
        public var certificateFile: String
        public var privateKeyFile: String
        /// Where registrations and unacknowledged messages are kept across restarts; nil: in memory only.
        public var stateFile: String?

        public init(listen: SimAddress, mcsListen: SimAddress, certificateFile: String, privateKeyFile: String,
                    stateFile: String? = nil) {
            self.listen = listen
            self.mcsListen = mcsListen
            self.certificateFile = certificateFile
            self.privateKeyFile = privateKeyFile
            self.stateFile = stateFile
        }
    }

    /// Prints `pushsim listening on http://HOST:PORT` and `pushsim mcs listening on HOST:PORT` once each listens,
    /// then one line per event; runs until SIGTERM or SIGINT.
    public static func run(_ configuration: Configuration, logLevel: Logger.Level = .info) async throws {
        let logger = SimListener.logger("pushsim-fcm", logLevel)
        let emulator = try FCMEmulator(events: SimEvents(), stateFile: configuration.stateFile)
        let mcs = try MCSServer(emulator: emulator, certificateFile: configuration.certificateFile,
                                privateKeyFile: configuration.privateKeyFile, logger: logger)
        let router = Router()
        FCMEmulatorRoutes(emulator: emulator).add(to: router)
        let app = SimListener.application(router, listen: configuration.listen, serverName: "pushsim-fcm", logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                try await mcs.run(host: configuration.mcsListen.host, port: configuration.mcsListen.port) { bound in
                    FileHandle.standardOutput.write(Data("pushsim mcs listening on \(bound)\n".utf8))
                }
            }
            // The HTTP side owns the signal handling. Whichever side ends first ends the other: before, an MCS
            // listener that could not bind left the HTTP side serving without it, for ever.
            tasks.addTask { try await app.runService() }
            defer { tasks.cancelAll() }
            try await tasks.next()
        }
    }
}
