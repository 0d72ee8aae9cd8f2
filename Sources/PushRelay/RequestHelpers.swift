import Foundation

/// The credential of `Authorization: Bearer <credential>`; the scheme is case-insensitive (RFC 7235). Sliced, not
/// copied byte by byte through reversed views: every poll and send reads it.
func bearerCredential(_ request: RelayRequest) -> String? {
    request.headers[.authorization].flatMap(bearerCredential(authorization:))
}

func bearerCredential(authorization value: String) -> String? {
    let scheme = "bearer ".utf8
    guard value.utf8.count > scheme.count,
          zip(value.utf8, scheme).allSatisfy({ $0 | 0x20 == $1 }) else { return nil }
    let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
    let bytes = value.utf8.dropFirst(scheme.count).drop(while: isBlank)
    guard let last = bytes.lastIndex(where: { !isBlank($0) }) else { return nil }
    return String(Substring(bytes[...last]))
}

/// An `application/x-www-form-urlencoded` body as name → value; nil when a name repeats or an escape is invalid
/// (RFC 6749 §3.2: "Request and response parameters MUST NOT be included more than once").
func urlEncodedForm(_ body: Data) -> [String: String]? {
    var fields: [String: String] = [:]
    let whole = forEachField(in: String(decoding: body, as: UTF8.self).utf8[...]) { name, value in
        guard let name, let value else { return false }
        return fields.updateValue(value, forKey: name) == nil
    }
    return whole ? fields : nil
}

/// The parameters of the query in `path`, percent-decoded; the first of a repeated name counts, one with an invalid
/// escape is left out.
func queryParameters(_ path: String) -> [String: String] {
    let path = path.utf8
    guard let start = path.firstIndex(of: UInt8(ascii: "?")) else { return [:] }
    var parameters: [String: String] = [:]
    forEachField(in: path[path.index(after: start)...]) { name, value in
        if let name, let value, parameters[name] == nil { parameters[name] = value }
        return true
    }
    return parameters
}

/// Each `name=value` of a form or a query, percent-decoded (nil where an escape is invalid), until `body` returns
/// false; whether it went through them all. Split as bytes: by `Character`, a combining mark after a `&` or `=` made
/// one grapheme with it, which then split nothing (`a=1&\u{301}b=2` was one field); and a long-poll's query cost a
/// sixtieth of the relay's CPU.
@discardableResult
private func forEachField(in text: Substring.UTF8View, _ body: (String?, String?) -> Bool) -> Bool {
    for pair in text.split(separator: UInt8(ascii: "&")) {
        let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
        guard body(formDecode(Substring(parts[0])), formDecode(parts.count == 2 ? Substring(parts[1]) : "")) else {
            return false
        }
    }
    return true
}

/// Foundation's decoding is the slow path: a poll's `after=…&wait=…` has nothing to decode, and decoding it took a
/// twentieth of the relay's CPU under delivery (docs/benchmarks.md).
func formDecode(_ text: Substring) -> String? {
    guard text.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else { return String(text) }
    // Literal: Foundation's default search takes `+` and a combining mark after it as one, and leaves that `+`.
    return text.replacingOccurrences(of: "+", with: " ", options: .literal).removingPercentEncoding
}
