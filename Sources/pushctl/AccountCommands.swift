import ArgumentParser
import ControlAPI
import Foundation
import PushAgentCore
import QRImage

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the daemon's state: relay connection, device, counts.")
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await global.run { client in
            let status = try await client.status()
            if global.json { return try Output.json(status) }
            var relay = "\(status.relay.state.rawValue) (\(status.relay.url))"
            if let next = status.relay.nextTryAt { relay += ", next try \(Output.relative(next))" }
            if let error = status.relay.lastError { relay += "\n  last error: \(error)" }
            if let resynced = status.relay.resyncedAt {
                relay += "\n  re-synced \(Output.relative(resynced)): \(status.relay.resyncReason ?? "")"
            }
            print("""
            pushagentd \(status.version), up \(status.uptimeSeconds)s
            relay: \(relay)
            device: \(status.deviceId ?? "(not registered yet)")
            accounts: \(status.counts.accounts)   pending: \(status.counts.pending)   rejected pushes: \(status.counts.rejectedPushes)
            """)
        }
    }
}

struct Accounts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List enrolled accounts.")
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await global.run { client in
            let accounts = try await client.accounts()
            if global.json { return try Output.json(AccountsResponse(accounts: accounts)) }
            if accounts.isEmpty { return print("no accounts; enroll one with `pushctl enroll URI`") }
            Output.table(["ID", "PROVIDER", "ISSUER", "NAME", "TOTP", "NOTE"], accounts.map {
                [$0.id, $0.provider.rawValue, $0.issuer, $0.name, $0.hasTOTP ? "yes" : "no",
                 $0.needsTokenUpdate ? "push token changed: " + ($0.tokenUpdateProblem ?? "telling the provider") : ""]
            })
        }
    }
}

struct Enroll: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Enroll an account from its QR-code URI (pushauth://, mfauth://, …) or a picture of the QR code.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The URI the QR code holds.") var uri: String?
    @Option(help: ArgumentHelp("A PNG or JPEG picture of the QR code, instead of the URI.", valueName: "image"))
    var qr: String?
    @Option(help: "A name for the account (default: from the URI).") var name: String?
    @Flag(help: "Parse the URI and show what would be enrolled; contacts nothing (works without a daemon).") var dryRun = false

    func validate() throws {
        switch (uri, qr) {
        case (nil, nil): throw ValidationError("give the URI, or --qr IMAGE with a picture of the QR code")
        case (.some, .some): throw ValidationError("give either the URI or --qr IMAGE, not both")
        default: break
        }
    }

    func run() async throws {
        let uri: String
        do {
            uri = try self.uri ?? QRImage.text(inImageAt: qr!)
        } catch {
            Output.error("\(error)")
            throw ExitCode.failure
        }
        if dryRun {
            do {
                let parsed = try EnrollmentURI.parse(uri)
                if global.json { return try Output.json(parsed.summary) }
                print(parsed.summary.map { "\($0.key): \($0.value)" }.sorted().joined(separator: "\n"))
                return
            } catch {
                Output.error("\(error)")
                throw ExitCode.failure
            }
        }
        try await global.run { client in
            let account = try await client.enroll(uri: uri, name: name)
            if global.json { return try Output.json(account) }
            print("enrolled \(account.id): \(account.issuer) \(account.name) (\(account.provider.rawValue))")
            if account.provider == .hyphen {
                print("next: sign this device in with `pushctl hyphen signin --account \(account.id) --credential -` (the token from your Hyphen app on stdin)")
            }
        }
    }
}

struct Remove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Remove an account (its pending approvals fail).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Account id or unique prefix.") var account: String

    func run() async throws {
        try await global.run { client in
            let removed = try await client.removeAccount(account)
            if global.json { return try Output.json(removed) }
            print("removed \(removed.id): \(removed.issuer) \(removed.name)")
        }
    }
}

struct Code: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show an account's current TOTP code.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Account id or unique prefix.") var account: String

    func run() async throws {
        try await global.run { client in
            let code = try await client.code(account: account)
            if global.json { return try Output.json(code) }
            print("\(code.code)  (\(code.secondsLeft)s left)")
        }
    }
}
