import ArgumentParser
import ControlClient
import ControlWire
import Foundation
import PushAgentCore

struct Requests: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the 2FA requests this device made (a Hyphen sign-in waiting for your other device), newest first.")
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

struct Hyphen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hyphen", abstract: "Hyphen accounts: sign this device in.", subcommands: [SignIn.self])

    struct SignIn: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "signin",
            abstract: "Sign this device in to an enrolled Hyphen account.",
            discussion: """
            With a device key Hyphen already knows, this signs in at once. Otherwise Hyphen asks another device of the \
            account (your phone) to approve; this waits for it (see `pushctl requests`). An account with no device yet \
            is signed up with this one. The credential is the sign-in token your Hyphen app issued; `--credential -` \
            reads it from stdin, which keeps it out of the process list.
            """)
        @OptionGroup var global: GlobalOptions
        @Option(help: "Account id or unique prefix.") var account: String
        @Option(help: ArgumentHelp("The sign-in token, or - to read it from stdin.", valueName: "token")) var credential: String
        @Flag(help: "Return once the request is made instead of waiting for the other device.") var noWait = false

        func run() async throws {
            let token = credential == "-" ? (readLine() ?? "").trimmingCharacters(in: .whitespaces) : credential
            try await global.run(ids: .account) { client in
                let request = try await client.hyphenSignIn(account: account, credential: token)
                if noWait || request.state.isFinal {
                    if global.json { return try Output.json(request) }
                    return Output.say("\(request.id) \(request.state.rawValue): \(request.message)")
                }
                try await RequestWaiting.untilFinal(request.id, client: client, json: global.json)
            }
        }
    }
}
