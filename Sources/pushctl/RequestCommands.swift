import ArgumentParser
import ControlClient
import ControlWire
import Foundation
import PushAgentCore

struct Requests: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the 2FA requests this device made (a sign-in waiting for your other device), newest first.")
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await global.run { client in
            let requests = try await client.requests()
            if global.json { return try Output.json(RequestsResponse(requests: requests)) }
            if requests.isEmpty { return Output.say("no requests") }
            Output.table(["ID", "STATE", "PROVIDER", "ACCOUNT", "EXPIRES", "MESSAGE"], requests.map {
                [$0.id, $0.state.rawValue, $0.provider.rawValue, $0.accountId,
                 $0.state.isFinal ? "-" : Output.relative($0.expiresAt), $0.error ?? $0.message]
            })
        }
    }
}

struct Wait: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Wait until a request this device made ends; exit 0 when it completed, 1 when denied or failed, 5 when it expired.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Request id or unique prefix.") var id: String

    func run() async throws {
        try await global.run(ids: .request) { client in try await RequestWaiting.untilFinal(id, client: client, json: global.json) }
    }
}

/// Shared by `wait` and `hyphen signin`.
enum RequestWaiting {
    static func untilFinal(_ id: String, client: ControlClient, json: Bool) async throws {
        var request = try await client.request(id)
        var announced = false
        while !request.state.isFinal {
            if !announced, !json {
                Output.say("\(request.id) \(request.state.rawValue): \(request.message) (expires \(Output.relative(request.expiresAt)))")
                announced = true
            }
            request = try await client.request(request.id, wait: 30)
        }
        if json { try Output.json(request) } else { Output.say("\(request.id) \(request.state.rawValue)\(request.txId.map { " (transaction \($0))" } ?? "")") }
        switch request.state {
        case .completed, .approved, .pending: return
        case .denied, .failed:
            Output.error("\(request.id) \(request.state.rawValue): \(request.error ?? "the other device denied it")")
            throw ExitCode.failure
        case .expired:
            Output.error("\(request.id) expired: \(request.error ?? "no answer in time"); start again")
            throw ExitCode(ExitStatus.conflictOrExpired)
        }
    }
}
