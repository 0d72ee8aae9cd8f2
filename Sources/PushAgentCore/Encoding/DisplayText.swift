/// Text that came from elsewhere (a provider's push or reply, a local program) and is shown in a terminal. Control
/// characters (escape sequences could rewrite what `pushctl list` shows) and bidirectional controls (could reverse
/// what the user reads) must never reach it as they are.
public enum DisplayText {
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control || scalar.properties.isBidiControl
    }

    /// `text` with each unsafe character replaced by `?`; line feeds kept when the text may span lines.
    public static func sanitized(_ text: String, keepingLineFeeds: Bool = false) -> String {
        let unsafe = { (scalar: Unicode.Scalar) in isUnsafe(scalar) && !(keepingLineFeeds && scalar == "\n") }
        guard text.unicodeScalars.contains(where: unsafe) else { return text }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: text.unicodeScalars.map { unsafe($0) ? "?" : $0 })
        return String(scalars)
    }
}
