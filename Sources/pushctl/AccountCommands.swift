import ArgumentParser
import ControlWire
import Foundation
import PushAgentCore

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the daemon's state: relay connection, device, counts.")
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await global.show({ try await $0.status() }) { status in
            var relay = "\(status.relay.state.rawValue) (\(status.relay.url))"
            if let next = status.relay.nextTryAt { relay += ", next try \(Output.relative(next))" }
            if let error = status.relay.lastError { relay += "\n  last error: \(error)" }
            if let resynced = status.relay.resyncedAt {
                relay += "\n  re-synced \(Output.relative(resynced)): \(status.relay.resyncReason ?? "")"
            }
            Output.say("""
            pushagentd \(status.version), up \(status.uptimeSeconds)s
            relay: \(relay)
            device: \(status.deviceId ?? "(not registered yet)")
            accounts: \(status.counts.accounts)   pending: \(status.counts.pending)   rejected pushes: \(status.counts.rejectedPushes)
            secrets sealed by: \(status.secretsSealedBy ?? "(not reported by this pushagentd)")
            verify approvals: \(status.userVerificationMethod == .polkit ? "polkit asks for your password" : "your login password, checked through PAM")
            """)
            // The relay's line is above; the providers' own sources (privacyIDEA polling) follow it when they have
            // something to fetch.
            for source in status.pushSources ?? [] where source.name != RelayStatus.sourceName && source.state != "idle" {
                let received = source.lastReceivedAt.map { ", last push \(Output.relative($0))" } ?? ""
                Output.say("\(source.name): \(source.state)\(received)\(source.detail.map { "\n  \($0)" } ?? "")")
            }
            for account in status.mutedAccounts ?? [] {
                Output.say("muted: \(account.id) \(account.issuer) \(account.name) until \(account.mutedUntil.map(Output.timestamp) ?? "?")\(account.muteReason.map { " (\($0))" } ?? "")")
            }
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
            if accounts.isEmpty { return Output.say("no accounts; enroll one with `pushctl enroll -` (the URI on stdin)") }
            Output.table(["ID", "PROVIDER", "ISSUER", "NAME", "TOTP", "PUSHES VIA", "NOTE"], accounts.map {
                [$0.id, $0.provider.rawValue, $0.issuer, $0.name, $0.hasTOTP ? "yes" : "no", $0.transport,
                 note(for: $0)]
            })
        }
    }
}

private func note(for account: Account) -> String {
    var notes: [String] = []
    if account.isMuted(at: Date()), let until = account.mutedUntil { notes.append("muted until \(Output.timestamp(until))") }
    if account.needsTokenUpdate { notes.append("push token changed: " + (account.tokenUpdateProblem ?? "telling the provider")) }
    return notes.joined(separator: "; ")
}

struct Remove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Remove an account (its pending approvals fail).")
    @OptionGroup var options: AccountOptions

    func run() async throws {
        try await options.show({ try await $0.removeAccount($1) }) { removed in
            Output.say("removed \(removed.id): \(removed.issuer) \(removed.name)")
        }
    }
}

struct Code: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show an account's current TOTP code.")
    @OptionGroup var options: AccountOptions

    func run() async throws {
        try await options.show({ try await $0.code(account: $1) }) { code in
            Output.say("\(code.code)  (\(code.secondsLeft)s left)")
        }
    }
}
