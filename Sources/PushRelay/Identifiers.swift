import Foundation

/// Random identifiers and credentials. `SystemRandomNumberGenerator` reads the kernel CSPRNG (getrandom),
/// which is what makes the tokens and secrets unguessable.
enum Identifiers {
    static func deviceID() -> String { hex(randomBytes(16)) }
    static func messageID() -> String { hex(randomBytes(16)) }
    static func pushToken() -> String { base64URL(randomBytes(32)) }
    static func deviceSecret() -> String { base64URL(randomBytes(32)) }
    static func accessToken() -> String { base64URL(randomBytes(32)) }

    private static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }

    private static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

/// RFC 3339 in UTC with whole seconds: the form every RFC 3339 parser accepts.
func rfc3339(milliseconds: Int64) -> String {
    Date(timeIntervalSince1970: Double(milliseconds) / 1000).formatted(.iso8601)
}

func nowMilliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
