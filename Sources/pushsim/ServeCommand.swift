import ConnectionGuards
import ArgumentParser
import PushSim

/// The flags every `serve` takes: where to listen, and the relay to send pushes through.
struct ServeOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Address to listen on; port 0 picks a free port.", valueName: "host:port"))
    var listen: String

    @Option(help: ArgumentHelp("Base URL of the relay's FCM-compatible send API.", valueName: "url"))
    var relay: String

    @Option(name: .customLong("sender-key"), help: ArgumentHelp("The relay's sender API key for --project.", valueName: "key"))
    var senderKey: String

    @Option(help: ArgumentHelp("The relay project to send in.", valueName: "project"))
    var project: String

    @Option(name: .customLong("public-url"),
            help: ArgumentHelp("Base URL agents reach this server at (default http://HOST:PORT).", valueName: "url"))
    var publicURL: String?

    func validate() throws {
        guard SimAddress(parsing: listen) != nil else {
            throw ValidationError("--listen: expected HOST:PORT (port 0-65535, IPv6 in brackets), got '\(listen)'")
        }
        try validateHTTPURL(relay, flag: "--relay")
        if let publicURL { try validateHTTPURL(publicURL, flag: "--public-url") }
        guard !senderKey.isEmpty else { throw ValidationError("--sender-key: must not be empty") }
        guard !project.isEmpty, project.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) else {
            throw ValidationError("--project: expected letters, digits, '-', '_' or '.', got '\(project)'")
        }
    }

    func serve(roles: [String]) async throws {
        let configuration = SimConfiguration(listen: SimAddress(parsing: listen)!, relayURL: relay,
                                             senderKey: senderKey, project: project, publicURL: publicURL)
        do {
            try await SimServer.run(configuration, roles: roles)
        } catch where ListenError.isBindFailure(error) {
            throw CommandFailure(message: "\(ListenError(host: configuration.listen.host, port: configuration.listen.port, program: "pushsim", change: "--listen HOST:PORT", error))")
        } catch {
            throw CommandFailure(message: "the server stopped: \(error)")
        }
    }

    static let discussion = "Prints 'pushsim listening on http://HOST:PORT' once listening, then one line per event. "
        + "SIGTERM or SIGINT stops it (exit 0)."
}

/// A provider's command, whose `serve` (`RoleServe<Self>`) plays the role of the command's name alone.
protocol ServedRole: ParsableCommand {
    /// The `serve` subcommand's abstract: which endpoints it serves.
    static var serveAbstract: String { get }
}

/// `pushsim <provider> serve`.
struct RoleServe<Role: ServedRole>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "serve", abstract: Role.serveAbstract, discussion: ServeOptions.discussion)
    }

    @OptionGroup var options: ServeOptions

    func run() async throws { try await options.serve(roles: [Role.configuration.commandName ?? ""]) }
}

/// `pushsim serve`: every provider on one listener, each under its own paths.
struct ServeAll: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Play every provider (\(SimServer.roleNames.joined(separator: ", "))) on one listener.",
        discussion: ServeOptions.discussion)

    @OptionGroup var options: ServeOptions

    func run() async throws { try await options.serve(roles: SimServer.roleNames) }
}
