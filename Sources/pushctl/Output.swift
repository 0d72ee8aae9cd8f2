import ArgumentParser
import ControlClient
import ControlWire
import Foundation
import PushAgentCore

/// How pushctl prints: short tables and paragraphs for people, the API's JSON with --json.
enum Output {
    /// Every human-readable line goes out through here: nearly all of it holds text from providers' pushes and
    /// enrollment URIs, or from programs' requests (DisplayText).
    static func say(_ text: String) {
        print(DisplayText.sanitized(text, keepingLineFeeds: true))
    }

    static func error(_ message: String) {
        // Messages carry the daemon's and providers' words (an approval's error, say).
        FileHandle.standardError.write(Data("pushctl: \(DisplayText.sanitized(message, keepingLineFeeds: true))\n".utf8))
    }

    static func warning(_ message: String) { error("warning: " + message) }

    static func json<T: Encodable>(_ value: T) throws {
        print(terminalSafe(json: String(decoding: try ControlJSON.encoder(pretty: true).encode(value), as: UTF8.self)))
    }

    /// `json` with DEL, C1 and bidirectional controls written as `\uXXXX` escapes, as the encoder already writes C0
    /// controls: the same JSON to any reader, and nothing a terminal would act on. Only strings can hold them, so
    /// the raw line feeds left are pretty-printing's.
    static func terminalSafe(json: String) -> String {
        let needsEscape = { (scalar: Unicode.Scalar) in DisplayText.isUnsafe(scalar) && scalar != "\n" }
        guard json.unicodeScalars.contains(where: needsEscape) else { return json }
        var escaped = ""
        for scalar in json.unicodeScalars {
            if needsEscape(scalar) {
                // Every unsafe scalar is in the Basic Multilingual Plane, so one escape spells it.
                escaped += String(format: "\\u%04x", scalar.value)
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// Cells are sanitized: most come from providers' pushes and programs' requests (DisplayText).
    static func table(_ header: [String], _ rows: [[String]]) {
        let rows = rows.map { $0.map { DisplayText.sanitized($0) } }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        for row in [header] + rows {
            print(row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  "))
        }
    }

    static func relative(_ date: Date, now: Date = Date()) -> String {
        // A daemon bounds what it shows, but a client must not trap on what another daemon sends.
        let seconds = Int(min(max(date.timeIntervalSince(now), -1e12), 1e12).rounded())
        let magnitude = abs(seconds)
        let text = magnitude < 90 ? "\(magnitude)s" : magnitude < 5400 ? "\(magnitude / 60)m" : "\(magnitude / 3600)h"
        return seconds >= 0 ? "in \(text)" : "\(text) ago"
    }

    static func timestamp(_ date: Date) -> String { "\(date.formatted(.iso8601)) (\(relative(date)))" }

    static func describe(_ approval: Approval) -> String {
        var lines = [
            "\(approval.id)  \(approval.state.rawValue)",
            "  \(approval.title)",
            "  \(approval.message)",
            // A receipt step-up names no account.
            "  provider: \(approval.provider.rawValue)   " + (approval.accountId.isEmpty ? "" : "account: \(approval.accountId)   ")
                + "kind: \(approval.kind.rawValue)",
        ]
        if let numbers = approval.numbers { lines.append("  choose the number shown at sign-in: \(numbers.joined(separator: "  "))") }
        let context = approval.context
        let facts = [("app", context.app), ("user", context.user), ("ip", context.ip), ("location", context.location),
                     ("browser", context.userAgent)].compactMap { key, value in value.map { "\(key): \($0)" } }
        if !facts.isEmpty { lines.append("  " + facts.joined(separator: "   ")) }
        lines.append("  requested \(relative(approval.requestedAt)), expires \(relative(approval.expiresAt))")
        if let resolved = approval.resolvedAt {
            var how = "  resolved \(relative(resolved))"
            if let uid = approval.resolution?.byUid { how += " by uid \(uid)" }
            if let number = approval.resolution?.number { how += ", number \(number)" }
            if let reason = approval.resolution?.reason { how += ", reason \(reason.rawValue)" }
            if let automatic = approval.resolution?.automatic { how += ", unseen by the agent: \(automatic.rawValue)" }
            if let code = approval.resolution?.displayCode { how += ", code to type at the sign-in \(code)" }
            lines.append(how)
        }
        if let error = approval.error { lines.append("  error: \(error)") }
        return lines.map { DisplayText.sanitized($0) }.joined(separator: "\n")
    }
}
