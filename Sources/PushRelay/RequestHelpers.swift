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
