import ArgumentParser
import ControlWire
import Foundation
import PushAgentCore

struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the daemon's events as they happen (approvals created and answered, relay state, accounts).",
        discussion: "Runs until the daemon stops (exit 0) or Ctrl-C. With --json, prints the API's NDJSON lines.")
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await global.run { client in
            if global.json {
                for try await line in try await client.eventLines() {
                    let safeLine = Output.terminalSafe(json: String(decoding: line, as: UTF8.self))
                    FileHandle.standardOutput.write(Data((safeLine + "\n").utf8))
                }
                return
            }
            for try await event in try await client.events() {
                // Written unbuffered, so a pipe reader sees each event as it happens.
                FileHandle.standardOutput.write(Data((Self.describe(event) + "\n").utf8))
            }
        }
    }

    static func describe(_ event: ControlEvent) -> String {
        let time = event.at.formatted(.iso8601.time(includingFractionalSeconds: false))
        let what: String
        if let bombing = event.bombing {
            what = "account \(bombing.accountId) (\(bombing.provider.displayName)) got more than \(bombing.limit) pushes in "
                + "\(Int(min(bombing.windowSeconds, 1e9))) s: push bombing? the rest are denied unseen"
        } else if let approval = event.approval {
            var line = "\(approval.id) \(approval.state.rawValue): \(approval.message)"
            if event.type == .approvalCreated, let numbers = approval.numbers {
                line += " (choose: \(numbers.joined(separator: ", ")))"
            }
            if let error = approval.error { line += " — \(error)" }
            what = line
        } else if let relay = event.relay {
            what = "relay \(relay.state.rawValue)" + (relay.lastError.map { ": \($0)" } ?? "")
        } else if let request = event.request {
            what = "\(request.id) \(request.state.rawValue): \(request.title)" + (request.error.map { " — \($0)" } ?? "")
        } else if let account = event.account {
            what = "account \(account.id) (\(account.issuer): \(account.name))"
        } else {
            what = ""
        }
        return DisplayText.sanitized("\(time) \(event.type.rawValue) \(what)")
    }
}
