import ArgumentParser
import ControlAPI
import Foundation

@main
struct PushCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushctl",
        abstract: "Control pushagentd: list push-MFA requests, approve or deny them, manage accounts.",
        discussion: """
        Exit codes: 0 ok, 1 failure, 2 usage, 3 daemon unreachable, 4 not found, 5 conflict or expired.
        IDs may be given by unique prefix.
        """,
        version: "0.1.0",
        subcommands: [Status.self, Accounts.self, Enroll.self, Remove.self, Code.self, List.self, Show.self,
                      Approve.self, Deny.self, History.self])
}

struct GlobalOptions: ParsableArguments {
    @Option(help: "Control socket (default: $PUSHAGENT_SOCKET, the user daemon's, else /run/pushagent/pushagentd.sock).")
    var socket: String?
    @Flag(help: "Print the API's JSON.") var json = false

    var client: ControlClient { ControlClient(socketPath: ControlSocket.clientPath(explicit: socket)) }

    /// Runs a control call and turns its failure into a message on stderr and the documented exit code.
    func run(_ body: (ControlClient) async throws -> Void) async throws {
        do {
            try await body(client)
        } catch let error as ControlClientError {
            Output.error(error.description)
            throw ExitCode(Output.exitCode(for: error))
        }
    }
}
