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
        var logger = Logger(label: "pushsim", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = logLevel
        let context = SimRoleContext(
            relay: RelaySender(relayURL: configuration.relayURL, project: configuration.project,
                               senderKey: configuration.senderKey),
            events: SimEvents())
        let roles = SimRoles.all.filter { names.contains($0.name) }.map { $0.init(context: context) }
        let router = Router()
        for role in roles { role.addRoutes(to: router) }
        let listen = configuration.listen
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(listen.host, port: listen.port), serverName: "pushsim"),
            onServerRunning: { channel in
                let bound = SimAddress(host: listen.host, port: channel.localAddress?.port ?? listen.port)
                for role in roles { await role.setPublicURL(configuration.publicURL ?? "http://\(bound)") }
                // Harnesses wait for exactly this line to learn the port.
                FileHandle.standardOutput.write(Data("pushsim listening on http://\(bound)\n".utf8))
            },
            logger: logger)
        try await app.runService()
    }
}
