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
    for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
        let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard let name = formDecode(parts[0]), let value = formDecode(parts.count == 2 ? parts[1] : ""),
              fields.updateValue(value, forKey: name) == nil
        else { return nil }
    }
    return fields
}

/// The parameters of the query in `path`, percent-decoded; the first of a repeated name counts. Read as bytes: by
/// `Character`, a long-poll's query cost a sixtieth of the relay's CPU.
func queryParameters(_ path: String) -> [String: String] {
    let path = path.utf8
    guard let start = path.firstIndex(of: UInt8(ascii: "?")) else { return [:] }
    var parameters: [String: String] = [:]
    for pair in path[path.index(after: start)...].split(separator: UInt8(ascii: "&")) {
        let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
        guard let name = formDecode(Substring(parts[0])),
              let value = formDecode(parts.count == 2 ? Substring(parts[1]) : "") else { continue }
        if parameters[name] == nil { parameters[name] = value }
    }
    return parameters
}

/// Foundation's decoding is the slow path: a poll's `after=…&wait=…` has nothing to decode, and decoding it took a
/// twentieth of the relay's CPU under delivery (docs/benchmarks.md).
func formDecode(_ text: Substring) -> String? {
    guard text.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else { return String(text) }
    return text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
}
