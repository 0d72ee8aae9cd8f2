import CryptoExtras
import Foundation
import JWTKit

/// RS256 compact JWS under a Guardian device key, header `{"alg":"RS256","typ":"JWT"}` as both SDKs write it.
enum GuardianJWS {
    static func sign(_ claims: some Codable & Sendable, key: GuardianDeviceKey) async throws(JWSError) -> String {
        let keys = JWTKeyCollection()
        do {
            await keys.add(rsa: try Insecure.RSA.PrivateKey(backing: key.privateKey), digestAlgorithm: .sha256)
        } catch {
            throw .malformed("the Guardian device key is unusable: \(error)")
        }
        return try await keys.sign(claims: claims)
    }

    /// The server's check (pushsim and tests): `alg` pinned to RS256, the signature, and only then the claims.
    static func verify<Claims: Codable & Sendable>(_ token: String, publicKey: _RSA.Signing.PublicKey,
                                                   as type: Claims.Type) async throws(JWSError) -> Claims {
        try CompactJWS.requireAlgorithm("RS256", of: token)
        let keys = JWTKeyCollection()
        do {
            await keys.add(rsa: try Insecure.RSA.PublicKey(backing: publicKey), digestAlgorithm: .sha256)
        } catch {
            throw .malformed("the Guardian public key is unusable: \(error)")
        }
        return try await keys.verifiedClaims(token, as: type)
    }
}
