import Foundation
import JWTKit

extension JWTKeyCollection {
    /// Signs any Codable claims with the collection's (only) key.
    func sign(claims: some Codable & Sendable) async throws(JWSError) -> String {
        do {
            return try await sign(ClaimsPayload(claims: claims))
        } catch {
            throw .malformed("cannot sign the JWT: \(error)")
        }
    }

    /// Checks the signature and only then decodes the claims (jwt-kit 5 verifies before it parses the payload).
    /// The caller pins the header's `alg` first (`CompactJWS.requireAlgorithm`).
    func verifiedClaims<Claims: Codable & Sendable>(_ token: String, as _: Claims.Type) async throws(JWSError) -> Claims {
        do {
            return try await verify(token, as: ClaimsPayload<Claims>.self).claims
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw .badSignature
        } catch {
            throw .malformed("the JWT does not decode: \(error)")
        }
    }
}
