import ArgumentParser
import ControlWire
import PushAgentCore

struct Refresh: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Ask the providers that are polled (\(ProviderRegistry.all.filter { $0.capabilities.contains(.pollSource) }.map(\.displayName).joined(separator: ", "))) for open sign-in requests now.")
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await global.show({ try await $0.refresh() }) { result in
            Output.say("polled \(result.polled) account(s): \(result.newApprovals.count) new approval(s)"
                  + (result.newApprovals.isEmpty ? "" : " (" + result.newApprovals.joined(separator: ", ") + ")"))
            for failure in result.failures { Output.error("\(failure.accountId): \(failure.error)") }
            if !result.failures.isEmpty { throw ExitCode.failure }
        }
    }
}
