import Foundation

/// The human-readable event lines on stdout (`pushsim: …`), one per event, written unbuffered so a demo or a
/// harness reading the pipe sees each line as it happens.
struct SimEvents: Sendable {
    func emit(_ line: String) {
        FileHandle.standardOutput.write(Data("pushsim: \(line)\n".utf8))
    }

    /// Push tokens are bearer-like secrets to the relay; events show only their start.
    static func short(_ token: String) -> String {
        token.count <= 10 ? token : String(token.prefix(10)) + "…"
    }
}
