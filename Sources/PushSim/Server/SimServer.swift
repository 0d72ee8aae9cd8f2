import Foundation
import Hummingbird
import Logging

/// `pushsim serve` and `pushsim <provider> serve`: the chosen roles' endpoints plus their admin APIs, on one listener.
public enum SimServer {
    /// The providers the sim can play.
    public static var roleNames: [String] { SimRoles.names }

    /// Runs until SIGTERM or SIGINT, then returns. Prints `pushsim listening on http://HOST:PORT` (the real port)
    /// once listening, then one line per event. Logs go to stderr.
    public static func run(_ configuration: SimConfiguration, roles names: [String],
                           logLevel: Logger.Level = .info) async throws {
        let context = SimRoleContext(
            relay: RelaySender(relayURL: configuration.relayURL, project: configuration.project,
                               senderKey: configuration.senderKey),
            events: SimEvents())
        let roles = SimRoles.all.filter { names.contains($0.name) }.map { $0.init(context: context) }
        let router = Router()
        for role in roles { role.addRoutes(to: router) }
        let app = SimListener.application(
            router, listen: configuration.listen, serverName: "pushsim", logger: SimListener.logger("pushsim", logLevel)
        ) { bound in
            for role in roles { await role.setPublicURL(configuration.publicURL ?? "http://\(bound)") }
        }
        try await app.runService()
    }
}

/// The HTTP listener of `pushsim serve` and of `pushsim fcm serve`.
enum SimListener {
    /// Logs go to stderr: stdout is for the listening line and the event lines.
    static func logger(_ label: String, _ level: Logger.Level) -> Logger {
        var logger = Logger(label: label, factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = level
        return logger
    }

    /// Serves `router` on `listen`; once listening, calls `ready` with the bound address (the real port), then prints
    /// `pushsim listening on http://HOST:PORT`.
    static func application(_ router: Router<BasicRequestContext>, listen: SimAddress, serverName: String, logger: Logger,
                            ready: @escaping @Sendable (SimAddress) async -> Void = { _ in }) -> some ApplicationProtocol {
        Application(
            router: router,
            configuration: .init(address: .hostname(listen.host, port: listen.port), serverName: serverName),
            onServerRunning: { channel in
                let bound = SimAddress(host: listen.host, port: channel.localAddress?.port ?? listen.port)
                await ready(bound)
                // Harnesses wait for exactly this line to learn the port.
                FileHandle.standardOutput.write(Data("pushsim listening on http://\(bound)\n".utf8))
            },
            logger: logger)
    }
}
