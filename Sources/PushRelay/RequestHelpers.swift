import Foundation
import Hummingbird

/// The credential of `Authorization: Bearer <credential>`; the scheme is case-insensitive (RFC 7235).
func bearerCredential(_ request: Request) -> String? {
    guard let value = request.headers[.authorization] else { return nil }
    let parts = value.split(separator: " ", maxSplits: 1)
    guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
    let credential = parts[1].trimmingCharacters(in: .whitespaces)
    return credential.isEmpty ? nil : credential
}

/// Reads the whole body; nil when it is larger than `limit`.
func collectBody(_ request: Request, limit: Int) async -> Data? {
    guard let buffer = try? await request.body.collect(upTo: limit) else { return nil }
    return Data(buffer.readableBytesView)
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

private func formDecode(_ text: Substring) -> String? {
    text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
}
