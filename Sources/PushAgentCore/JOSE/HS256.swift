import Foundation
import JWTKit

/// Compact HS256 JWS with the algorithm pinned (HS384, `none`, … are refused before the signature is looked at).
enum HS256 {
    /// jwt-kit asserts (SIGILL in debug builds) on HMAC keys shorter than the digest, so short keys are refused here first.
    static let minimumKeyBytes = 32

    static func sign(_ claims: some Codable & Sendable, key: Data) async throws(JWSError) -> String {
        try await collection(key: key).sign(claims: claims)
    }

    /// Checks the header's `alg`, then the signature, and only then decodes the claims.
    static func verify<Claims: Codable & Sendable>(_ token: String, key: Data, as type: Claims.Type) async throws(JWSError) -> Claims {
        try CompactJWS.requireAlgorithm("HS256", of: token)
        return try await collection(key: key).verifiedClaims(token, as: type)
    }

    private static func collection(key: Data) async throws(JWSError) -> JWTKeyCollection {
        guard key.count >= minimumKeyBytes else { throw .keyTooShort(bytes: key.count) }
        return await JWTKeyCollection().add(hmac: HMACKey(from: key), digestAlgorithm: .sha256)
    }
}
