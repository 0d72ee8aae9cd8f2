import ArgumentParser
import ControlWire
import Foundation
import PushAgentCore

struct Mute: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Deny an account's pushes unseen for a while (push bombing).",
        discussion: "While muted, every push for the account is denied at the provider, as fraud where it takes a reason, and recorded in `pushctl history` as rejected (muted).")
    @OptionGroup var options: AccountOptions
    @Option(name: .customLong("for"), help: "How long: 90s, 20m, 2h, 1d (default: the daemon's fraud_mute_seconds, else 20m).",
            transform: MuteDuration.seconds) var duration: Double?

    func run() async throws {
        try await options.show({ try await $0.mute(account: $1, seconds: duration) }) { muted in
            Output.say("\(muted.id) muted until \(muted.mutedUntil.map(Output.timestamp) ?? "?")")
        }
    }
}

struct Unmute: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show an account's pushes again.")
    @OptionGroup var options: AccountOptions

    func run() async throws {
        try await options.show({ try await $0.unmute(account: $1) }) { account in
            Output.say("\(account.id) unmuted")
        }
    }
}

enum MuteDuration {
    /// `90`, `90s`, `20m`, `2h`, `1d` in seconds.
    static func seconds(_ text: String) throws -> Double {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        let unit = text.last.flatMap { units[$0] }
        guard let number = Double(unit == nil ? text : String(text.dropLast())), number > 0, number.isFinite else {
            throw ValidationError("'\(text)' is not a duration: use a number with s, m, h or d, e.g. 20m")
        }
        return number * (unit ?? 1)
    }
}
