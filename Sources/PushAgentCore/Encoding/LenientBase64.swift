import Foundation

/// Base64 as providers really send it: QR codes and JWT claims mix the standard and URL-safe alphabets, with and
/// without padding, sometimes within one URI. Output is always one canonical form so stored values compare equal.
public enum LenientBase64 {
    /// Decodes either alphabet, padding optional. Returns nil for anything else (whitespace, stray `=`, bad length).
    /// Read byte by byte: every push's JWT segments come through here, and reading them by `Character` took a fiftieth
    /// of the agent's CPU a push. Only ASCII is base64, so the bytes answer as the characters did.
    public static func decode(_ text: some StringProtocol) -> Data? {
        var body = Array(text.utf8)
        while body.last == UInt8(ascii: "=") { body.removeLast() }
        guard body.count % 4 != 1 else { return nil }
        for index in body.indices {
            switch body[index] {
            case UInt8(ascii: "-"): body[index] = UInt8(ascii: "+")
            case UInt8(ascii: "_"): body[index] = UInt8(ascii: "/")
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "+"), UInt8(ascii: "/"): break
            default: return nil
            }
        }
        body += repeatElement(UInt8(ascii: "="), count: (4 - body.count % 4) % 4)
        return Data(base64Encoded: Data(body))
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
