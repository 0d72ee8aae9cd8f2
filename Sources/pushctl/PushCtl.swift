import ArgumentParser
import CommandSupport
import ControlClient
import ControlWire
import Foundation

@main
enum PushCtlMain {
    static func main() async {
        await CommandEntry.main(PushCtl.self, name: "pushctl",
                                arguments: GlobalOptions.movedAfterSubcommand(Array(CommandLine.arguments.dropFirst())))
    }
}

struct PushCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushctl",
        abstract: "Control pushagentd: list push-MFA requests, approve or deny them, manage accounts.",
        discussion: ExitStatus.table + "\nIDs may be given by unique prefix.",
        version: PushAgentVersion.string,
        subcommands: [Status.self, Accounts.self, Enroll.self, Remove.self, Code.self, List.self, Show.self,
                      Approve.self, Deny.self, Watch.self, Requests.self, Wait.self, History.self, Refresh.self,
                      JWKS.self, Hyphen.self, Mute.self, Unmute.self, Notify.self, Backup.self, Restore.self, FCM.self,
                      WebPush.self])
}

struct GlobalOptions: ParsableArguments {
    static let socketHelp: ArgumentHelp = "Control socket (default: $PUSHAGENT_SOCKET, else the first that exists of the user daemon's ($XDG_RUNTIME_DIR/pushagent/, then ~/.local/state/pushagent/) and /run/pushagent/pushagentd.sock)."
    @Option(help: socketHelp) var socket: String?
    @Flag(help: "Print the API's JSON.") var json = false

    /// `pushctl --socket S --json list` is the documented form; the parser wants options after the subcommand.
    static func movedAfterSubcommand(_ arguments: [String]) -> [String] {
        var globals: [String] = []
        var rest = arguments[...]
        while let first = rest.first {
            if first == "--json" || first.hasPrefix("--socket=") {
                globals.append(first)
                rest = rest.dropFirst()
            } else if first == "--socket", rest.count >= 2 {
                globals += rest.prefix(2)
                rest = rest.dropFirst(2)
            } else {
                break
            }
        }
        guard !rest.isEmpty else { return arguments }
        // After the whole command path (`hyphen signin`), before the first option: only the leaf takes them.
        let path = rest.prefix { !$0.hasPrefix("-") }
        return Array(path) + globals + rest.dropFirst(path.count)
    }

    var client: ControlClient { ControlClient(resolving: socket) }

    /// Runs a control call and turns its failure into a message on stderr and the documented exit code.
    /// `invalidArgument`: the code for the daemon's invalid_argument, where it is about something else than a value
    /// given on the command line. `ids`: what the command's id names, so that an id the daemon does not know is
    /// answered with the command that lists the ones it does.
    func run(invalidArgument: Int32 = ExitStatus.usage, ids: IDListing? = nil,
             _ body: (ControlClient) async throws -> Void) async throws {
        do {
            try await body(client)
        } catch let error as ControlClientError {
            if case .api(_, let api) = error, api.code == .notFound, let ids {
                Output.error("\(error.description); \(ids.hint)")
            } else {
                Output.error(error.description)
            }
            if case .api(_, let api) = error, api.code == .invalidArgument { throw ExitCode(invalidArgument) }
            throw ExitCode(ExitStatus.forError(error))
        }
    }

    /// `run` for a call whose answer is the output: the API's JSON with --json, else what `say` prints of it.
    func show<Answer: Encodable>(invalidArgument: Int32 = ExitStatus.usage, ids: IDListing? = nil,
                                 _ call: (ControlClient) async throws -> Answer,
                                 say: (Answer) throws -> Void) async throws {
        try await run(invalidArgument: invalidArgument, ids: ids) { client in
            let answer = try await call(client)
            if json { return try Output.json(answer) }
            try say(answer)
        }
    }
}

/// The options of a command on one account (`pushctl code ACCOUNT`): the global ones and the account.
struct AccountOptions: ParsableArguments {
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Account id or unique prefix.") var account: String

    /// `GlobalOptions.show` for a call on the account; an id the daemon does not know is answered with `pushctl accounts`.
    func show<Answer: Encodable>(_ call: (ControlClient, String) async throws -> Answer,
                                 say: (Answer) throws -> Void) async throws {
        try await global.show(ids: .account, { try await call($0, account) }, say: say)
    }
}

/// What a command's id names, and where the valid ones are listed.
enum IDListing {
    case approval, account, request, webPushSubscription

    var hint: String {
        switch self {
        case .approval: "`pushctl list` shows the pending approvals' ids, `pushctl list --all` every approval's"
        case .account: "`pushctl accounts` shows the accounts' ids"
        case .request: "`pushctl requests` shows the requests' ids"
        case .webPushSubscription: "`pushctl webpush list` shows your subscriptions' names"
        }
    }
}
