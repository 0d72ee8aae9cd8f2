import ArgumentParser
import CurlHTTP
import Foundation
import PushAgentKit

/// Calls a protected endpoint through the step-up retrier. When the server challenges, the retrier asks pushagentd
/// (or the terminal) once, however many requests are waiting, and retries each with the answer.
@main
struct StepUpExample: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stepup-example",
        abstract: "Call a protected URL through PushAgentKit's step-up retrier.",
        discussion: "Exit status: 0 when every request ends in 2xx, 1 otherwise (the reason on stderr).")

    enum TriggerName: String, ExpressibleByArgument, CaseIterable {
        case githubOTP = "github-otp", npmOTP = "npm-otp", rfc9470, headerPair = "header-pair"

        var trigger: any StepUpTrigger {
            switch self {
            case .githubOTP: GitHubOTPTrigger()
            case .npmOTP: NPMOTPTrigger()
            case .rfc9470: BearerStepUpTrigger()
            case .headerPair: HeaderPairTrigger()
            }
        }
    }

    enum FlowName: String, ExpressibleByArgument, CaseIterable { case pushagent, terminal }

    @Argument(help: "The protected URL.") var url: String
    @Option(help: "The challenge to expect: \(TriggerName.allCases.map(\.rawValue).joined(separator: ", ")).")
    var trigger: TriggerName = .githubOTP
    @Option(help: "Who answers: pushagent (pushagentd asks the user) or terminal (you type the code).")
    var flow: FlowName = .pushagent
    @Option(help: "The account whose TOTP code answers code challenges (ids in `pushctl accounts`).") var account: String?
    @Option(help: "pushagentd's control socket (default: $PUSHAGENT_SOCKET, the user daemon's, the system one).")
    var socket: String?
    @Option(help: "Concurrent requests; they share one step-up.") var requests = 1

    func validate() throws {
        guard (1...100).contains(requests) else { throw ValidationError("--requests: 1 to 100, not \(requests)") }
    }

    func run() async throws {
        let flow: any StepUpFlow = switch self.flow {
        case .pushagent: PushAgentFlow(socketPath: socket, totpAccount: account)
        case .terminal: try TerminalPromptFlow()
        }
        let client = StepUpHTTPClient(retrier: StepUpRetrier(triggers: [trigger.trigger], flow: flow))
        let url = self.url
        let succeeded = await withTaskGroup(of: Bool.self) { group in
            for number in 1...requests {
                group.addTask { await Self.call(client, url, number: number) }
            }
            return await group.reduce(true) { $0 && $1 }
        }
        if !succeeded { throw ExitCode.failure }
    }

    private static func call(_ client: StepUpHTTPClient, _ url: String, number: Int) async -> Bool {
        do {
            let response = try await client.send(HTTPRequest(url: url))
            say("request \(number): HTTP \(response.status) \(response.text.trimmingCharacters(in: .whitespacesAndNewlines))")
            return (200..<300).contains(response.status)
        } catch let error as StepUpError {
            if case .cancelled = error { say("request \(number): cancelled") } else { complain("request \(number): \(error)") }
            return false
        } catch {
            complain("request \(number): \(error)")
            return false
        }
    }

    // Unbuffered, so a watching terminal or test sees each line as it happens.
    private static func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    private static func complain(_ line: String) { FileHandle.standardError.write(Data(("stepup-example: " + line + "\n").utf8)) }
}
