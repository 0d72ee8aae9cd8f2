import Foundation
import PushAgentCore

/// Text a local program puts in front of the user. Control characters (terminal escape sequences could rewrite what
/// `pushctl list` shows) and bidirectional controls (could reverse what the user reads) are refused in what the
/// program sends, and replaced in what the daemon reads about it (file names are the program's choice too).
enum StepUpText {
    static func checked(_ text: String?, field: String, limit: Int) throws -> String? {
        guard let trimmed = text?.trimmingCharacters(in: .whitespaces), !trimmed.isEmpty else { return nil }
        guard trimmed.count <= limit else {
            throw ServiceError(.invalidArgument, "\(field) has \(trimmed.count) characters; at most \(limit) are shown")
        }
        if let bad = trimmed.unicodeScalars.first(where: DisplayText.isUnsafe) {
            let code = String(bad.value, radix: 16, uppercase: true)
            throw ServiceError(.invalidArgument, "\(field) contains the control character U+\(String(repeating: "0", count: max(0, 4 - code.count)) + code); send plain text")
        }
        return trimmed
    }
}
