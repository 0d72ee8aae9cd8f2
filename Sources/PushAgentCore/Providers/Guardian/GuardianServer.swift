import CryptoExtras
import Foundation

/// Guardian's side of the answer, small enough to live next to the agent's: pushsim can play Guardian with it, and
/// tests check one side against the other.
public enum GuardianServer {
    /// The enrolled JWK as a key: what Guardian verifies answers with.
    public static func publicKey(_ jwk: GuardianJWK) throws -> _RSA.Signing.PublicKey {
        guard jwk.kty == "RSA", let n = LenientBase64.decode(jwk.n), let e = LenientBase64.decode(jwk.e) else {
            throw JWSError.malformed("the enrolled key is not an RSA JWK")
        }
        return try _RSA.Signing.PublicKey(n: n, e: e)
    }

    /// An answer's claims once `alg` (RS256 only) and the signature check out.
    public static func verifyAnswer(_ jwt: String, publicKey: _RSA.Signing.PublicKey) async throws
        -> GuardianAnswerClaims {
        try await GuardianJWS.verify(jwt, publicKey: publicKey, as: GuardianAnswerClaims.self)
    }

    /// A device-account call's JWT, likewise.
    public static func verifyDeviceAccountJWT(_ jwt: String, publicKey: _RSA.Signing.PublicKey) async throws
        -> GuardianDeviceAccountClaims {
        try await GuardianJWS.verify(jwt, publicKey: publicKey, as: GuardianDeviceAccountClaims.self)
    }
}
