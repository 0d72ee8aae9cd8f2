import Foundation

/// The credential of `Authorization: Bearer <credential>`; the scheme is case-insensitive (RFC 7235).
func bearerCredential(_ request: RelayRequest) -> String? {
    guard let value = request.headers[.authorization]?.utf8, value.count > 7,
          value.prefix(7).map({ $0 | 0x20 }).elementsEqual("bearer ".utf8)
    else { return nil }
    let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
    let credential = value.dropFirst(7).drop(while: isBlank).reversed().drop(while: isBlank).reversed()
    return credential.isEmpty ? nil : String(decoding: credential, as: UTF8.self)
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

/// Foundation's decoding is the slow path: a poll's `after=…&wait=…` has nothing to decode, and decoding it took a
/// twentieth of the relay's CPU under delivery (docs/benchmarks.md).
func formDecode(_ text: Substring) -> String? {
    guard text.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else { return String(text) }
    return text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
}
