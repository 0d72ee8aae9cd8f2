import Foundation

/// Base64 as providers really send it: QR codes and JWT claims mix the standard and URL-safe alphabets, with and
/// without padding, sometimes within one URI. Output is always one canonical form so stored values compare equal.
public enum LenientBase64 {
    /// Decodes either alphabet, padding optional. Returns nil for anything else (whitespace, stray `=`, bad length).
    public static func decode(_ text: some StringProtocol) -> Data? {
        var body = Substring(text)
        while body.last == "=" { body.removeLast() }
        guard body.count % 4 != 1 else { return nil }
        var normalized = ""
        normalized.reserveCapacity(body.utf8.count + 3)
        for character in body {
            switch character {
            case "-": normalized.append("+")
            case "_": normalized.append("/")
            case "A"..."Z", "a"..."z", "0"..."9", "+", "/": normalized.append(character)
            default: return nil
            }
        }
        normalized.append(String(repeating: "=", count: (4 - normalized.utf8.count % 4) % 4))
        return Data(base64Encoded: normalized)
    }

    /// Decodes to UTF-8 text, or nil when the value is not base64 of valid UTF-8.
    public static func decodeText(_ text: some StringProtocol) -> String? {
        decode(text).flatMap { String(data: $0, encoding: .utf8) }
    }
}

extension Data {
    /// Standard alphabet, padded: the form ForgeRock's answers and stored values use.
    public var standardBase64: String { base64EncodedString() }

    /// URL-safe alphabet without padding: the form enrollment URIs and JWT segments use.
    public var base64URLUnpadded: String {
        var text = base64EncodedString()
        while text.last == "=" { text.removeLast() }
        return String(text.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }
}
