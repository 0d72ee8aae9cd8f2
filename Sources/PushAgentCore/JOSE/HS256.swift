import Foundation
import JWTKit

/// Compact HS256 JWS with the algorithm pinned: a token naming any other `alg` (HS384, `none`, …) is refused
/// before its signature is looked at, so a forged header can never pick a weaker check.
enum HS256 {
    /// jwt-kit asserts (SIGILL in debug builds) on HMAC keys shorter than the digest, so short keys are refused here first.
    static let minimumKeyBytes = 32

    static func sign(_ claims: some Codable & Sendable, key: Data) async throws(JWSError) -> String {
        let keys = try await collection(key: key)
        do {
            return try await keys.sign(ClaimsPayload(claims: claims))
        } catch {
            throw .malformed("cannot sign the JWT: \(error)")
        }
    }

    /// Checks the header's `alg`, then the signature, and only then decodes the claims.
    static func verify<Claims: Codable & Sendable>(_ token: String, key: Data, as _: Claims.Type) async throws(JWSError) -> Claims {
        let algorithm = try CompactJWS.algorithm(of: token)
        guard algorithm == "HS256" else { throw .algorithmNotAllowed(algorithm) }
        let keys = try await collection(key: key)
        do {
            return try await keys.verify(token, as: ClaimsPayload<Claims>.self).claims
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw .badSignature
        } catch {
            throw .malformed("the JWT does not decode: \(error)")
        }
    }

    private static func collection(key: Data) async throws(JWSError) -> JWTKeyCollection {
        guard key.count >= minimumKeyBytes else { throw .keyTooShort(bytes: key.count) }
        return await JWTKeyCollection().add(hmac: HMACKey(from: key), digestAlgorithm: .sha256)
    }
}
