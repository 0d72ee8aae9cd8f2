import Foundation
import Hummingbird
import Logging

/// `pushsim fcm serve`: Google's FCM as a web-push client and a sender see it. Its HTTP services on one listener
/// (FCMEmulatorRoutes), MCS over TLS on another.
public enum FCMEmulatorServer {
    /// Prints `pushsim listening on http://HOST:PORT` and `pushsim mcs listening on HOST:PORT` once each listens,
    /// then one line per event; runs until SIGTERM or SIGINT. MCS's TLS uses `certificateFile` and `privateKeyFile`;
    /// `stateFile` keeps registrations and unacknowledged messages across restarts (nil: in memory only).
    public static func run(listen: SimAddress, mcsListen: SimAddress, certificateFile: String, privateKeyFile: String,
                           stateFile: String? = nil, logLevel: Logger.Level = .info) async throws {
        let logger = SimListener.logger("pushsim-fcm", logLevel)
        let emulator = try FCMEmulator(events: SimEvents(), stateFile: stateFile)
        let mcs = try MCSServer(emulator: emulator, certificateFile: certificateFile, privateKeyFile: privateKeyFile,
                                logger: logger)
        let router = Router()
        FCMEmulatorRoutes(emulator: emulator).add(to: router)
        let app = SimListener.application(router, listen: listen, serverName: "pushsim-fcm", logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                try await mcs.run(host: mcsListen.host, port: mcsListen.port) { bound in
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
