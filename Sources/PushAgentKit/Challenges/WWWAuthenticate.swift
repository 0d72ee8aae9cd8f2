/// One challenge of a `WWW-Authenticate` field: `Bearer error="…", max_age=5` or `Negotiate abc==`.
public struct AuthChallenge: Sendable, Equatable {
    public var scheme: String
    public var token68: String?
    /// Parameter names lower-cased (they are case-insensitive), values unquoted, in received order.
    public var parameters: [(name: String, value: String)]

    public subscript(name: String) -> String? { parameters.first { $0.name == name.lowercased() }?.value }

    public func hasScheme(_ name: String) -> Bool { scheme.lowercased() == name.lowercased() }

    public static func == (a: AuthChallenge, b: AuthChallenge) -> Bool {
        a.scheme == b.scheme && a.token68 == b.token68 && a.parameters.elementsEqual(b.parameters) { $0 == $1 }
    }
}

/// Why a `WWW-Authenticate` value does not parse; `offset` is the byte where it went wrong.
public struct WWWAuthenticateError: Error, Equatable, CustomStringConvertible {
    public var offset: Int
    public var problem: String
    public var description: String { "malformed WWW-Authenticate at byte \(offset): \(problem)" }
}

/// The `WWW-Authenticate` grammar of RFC 9110 §11.6.1 (list of `auth-scheme [ 1*SP ( token68 / #auth-param ) ]`,
/// `auth-param = token BWS "=" BWS ( token / quoted-string )`), with the list rule's empty elements (§5.6.1).
public enum WWWAuthenticate {
    /// Every challenge in the field values, in order. Several fields are one list (RFC 9110 §5.3).
    public static func parse(_ values: [String]) throws(WWWAuthenticateError) -> [AuthChallenge] {
        var challenges: [AuthChallenge] = []
        for value in values { challenges += try parse(value) }
        return challenges
    }

    public static func parse(_ value: String) throws(WWWAuthenticateError) -> [AuthChallenge] {
        var scanner = Scanner(Array(value.utf8))
        var challenges: [AuthChallenge] = []
        while true {
            scanner.skipListSeparators()
            if scanner.atEnd { return challenges }
            guard let scheme = scanner.token() else { throw scanner.error("expected an auth-scheme token") }
            var challenge = AuthChallenge(scheme: scheme, token68: nil, parameters: [])
            // Parameters end at the end or where the next challenge starts; anything else must be followed by a comma.
            let spaced = scanner.skipWhitespace() > 0 && !scanner.atEnd && scanner.peek != UInt8(ascii: ",")
            if spaced { challenge.token68 = scanner.token68() }
            if spaced, challenge.token68 == nil {
                try parameters(into: &challenge, &scanner)
            } else {
                scanner.skipWhitespace()
                guard scanner.atEnd || scanner.peek == UInt8(ascii: ",") else {
                    throw scanner.error("expected ',' or the end after the \(challenge.scheme) challenge")
                }
            }
            challenges.append(challenge)
        }
    }

    /// `#auth-param`: parameters until the end, or a comma followed by what is not a parameter (the next challenge).
    private static func parameters(into challenge: inout AuthChallenge, _ scanner: inout Scanner) throws(WWWAuthenticateError) {
        while true {
            let start = scanner.position
            guard let name = scanner.token() else { throw scanner.error("expected a parameter name") }
            scanner.skipWhitespace()
            guard scanner.peek == UInt8(ascii: "=") else {
                // Not a parameter: the next challenge's scheme, unless nothing was read yet.
                guard !challenge.parameters.isEmpty else { throw scanner.error("expected '=' after parameter '\(name)'") }
                scanner.position = start
                return
            }
            scanner.advance()
            scanner.skipWhitespace()
            let value: String
            if scanner.peek == UInt8(ascii: "\"") {
                value = try scanner.quotedString()
            } else if let token = scanner.token() {
                value = token
            } else {
                throw scanner.error("expected a token or a quoted string as the value of '\(name)'")
            }
            let key = name.lowercased()
            guard challenge[key] == nil else { throw scanner.error("parameter '\(key)' occurs twice in one challenge") }
            challenge.parameters.append((key, value))
            scanner.skipWhitespace()
            if scanner.atEnd { return }
            guard scanner.peek == UInt8(ascii: ",") else {
                throw scanner.error("expected ',' between parameters")
            }
            scanner.skipListSeparators()
            if scanner.atEnd { return }
        }
    }
}

/// A cursor over the field's bytes (header values are octets; obs-text passes through as UTF-8).
private struct Scanner {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { position >= bytes.count }
    var peek: UInt8? { atEnd ? nil : bytes[position] }
    mutating func advance() { position += 1 }

    func error(_ problem: String) -> WWWAuthenticateError { WWWAuthenticateError(offset: position, problem: problem) }

    @discardableResult
    mutating func skipWhitespace() -> Int {
        let start = position
        while let byte = peek, byte == 0x20 || byte == 0x09 { advance() }
        return position - start
    }

    mutating func skipListSeparators() {
        while let byte = peek, byte == 0x20 || byte == 0x09 || byte == UInt8(ascii: ",") { advance() }
    }

    /// `token = 1*tchar`.
    mutating func token() -> String? {
        let start = position
        while let byte = peek, Self.isTokenCharacter(byte) { advance() }
        return position > start ? String(decoding: bytes[start..<position], as: UTF8.self) : nil
    }

    /// `token68 = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`, only when nothing but the end, a
    /// comma or whitespace follows (else it is the first auth-param's name, which the caller parses instead).
    mutating func token68() -> String? {
        let start = position
        while let byte = peek, Self.isToken68Character(byte) { advance() }
        guard position > start else { return nil }
        while peek == UInt8(ascii: "=") { advance() }
        var probe = self
        probe.skipWhitespace()
        if probe.atEnd || probe.peek == UInt8(ascii: ",") {
            return String(decoding: bytes[start..<position], as: UTF8.self)
        }
        position = start
        return nil
    }

    /// `quoted-string = DQUOTE *( qdtext / quoted-pair ) DQUOTE`; control characters other than HTAB are refused.
    mutating func quotedString() throws(WWWAuthenticateError) -> String {
        let open = position
        advance()
        var value: [UInt8] = []
        while let byte = peek {
            advance()
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: value, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escaped = peek else { throw error("a '\\' ends the quoted string") }
                guard Self.isQuotable(escaped) else { throw error("control character in a quoted string") }
                value.append(escaped)
                advance()
            default:
                guard Self.isQuotable(byte) else {
                    position -= 1
                    throw error("control character in a quoted string")
                }
                value.append(byte)
            }
        }
        throw WWWAuthenticateError(offset: open, problem: "quoted string is not closed")
    }

    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    private static func isToken68Character(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "-._~+/".utf8.contains(byte)
        }
    }

    /// HTAB, SP, VCHAR and obs-text: what qdtext and quoted-pair allow.
    private static func isQuotable(_ byte: UInt8) -> Bool { byte == 0x09 || (byte >= 0x20 && byte != 0x7F) }
}
