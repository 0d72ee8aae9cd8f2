import Crypto
import CryptoExtras
import Foundation
import JWTKit

/// Compact JWS under a PlusAuth account's key, the algorithm pinned to the one the account was enrolled with.
enum PlusAuthJWS {
    static func sign(_ claims: some Codable & Sendable, key: PlusAuthJWK, algorithm: PlusAuthAlgorithm)
        async throws(JWSError) -> String {
        guard key.isPrivate else { throw .malformed("signing needs the private key") }
        return try await key.keyCollection(for: algorithm).sign(claims: claims)
    }

    /// Checks the header's `alg` against the enrolled one, then the signature, and only then decodes the claims.
    static func verify<Claims: Codable & Sendable>(_ token: String, key: PlusAuthJWK, algorithm: PlusAuthAlgorithm,
                                                   as type: Claims.Type) async throws(JWSError) -> Claims {
        try CompactJWS.requireAlgorithm(algorithm.rawValue, of: token)
        return try await key.publicKey.keyCollection(for: algorithm).verifiedClaims(token, as: type)
    }
}

extension PlusAuthJWK {
    /// jwt-kit keys for `algorithm`: the private key when this JWK has one, else the public one. A JWK of another
    /// type or curve, with members that do not decode, or whose halves do not belong together is refused.
    func keyCollection(for algorithm: PlusAuthAlgorithm) async throws(JWSError) -> JWTKeyCollection {
        guard kty == algorithm.keyType else {
            throw .malformed("an \(algorithm.rawValue) key must have kty \(algorithm.keyType), not '\(kty)'")
        }
        let keys = JWTKeyCollection()
        do {
            switch algorithm {
            case .es256:
                guard crv == "P-256" else { throw JWSError.malformed("an ES256 key must be on curve P-256") }
                let point = try P256.Signing.PublicKey(x963Representation: [0x04] + bytes(x, "x") + bytes(y, "y"))
                if let d {
                    let key = try P256.Signing.PrivateKey(rawRepresentation: bytes(d, "d"))
                    guard key.publicKey.x963Representation == point.x963Representation else {
                        throw JWSError.malformed("the private key 'd' does not belong to the public key 'x', 'y'")
                    }
                    await keys.add(ecdsa: try ES256PrivateKey(backing: key))
                } else {
                    await keys.add(ecdsa: try ES256PublicKey(backing: point))
                }
            case .rs256:
                let (modulus, exponent) = try (bytes(n, "n"), bytes(e, "e"))
                try Self.requireUsableModulus(modulus)
                if let d {
                    // Only with p and q does BoringSSL check that the numbers form one key; from n, e and d alone
                    // swift-crypto factors n itself, and a crafted n traps or never returns. Our keys carry p and q.
                    guard let p, let q else {
                        throw JWSError.malformed("an RS256 private key must carry its primes 'p' and 'q'")
                    }
                    let key = try _RSA.Signing.PrivateKey(n: modulus, e: exponent, d: bytes(d, "d"),
                                                          p: bytes(p, "p"), q: bytes(q, "q"))
                    await keys.add(rsa: try Insecure.RSA.PrivateKey(backing: key), digestAlgorithm: .sha256)
                } else {
                    await keys.add(rsa: try Insecure.RSA.PublicKey(backing: .init(n: modulus, e: exponent)),
                                   digestAlgorithm: .sha256)
                }
            }
        } catch let error as JWSError {
            throw error
        } catch {
            throw .malformed("the \(algorithm.rawValue) key is unusable: \(error)")
        }
        return keys
    }

    static let minimumRSAModulusBits = 2048

    private static func requireUsableModulus(_ modulus: Data) throws(JWSError) {
        let significant = modulus.drop { $0 == 0 }
        let bits = significant.first.map { significant.count * 8 - $0.leadingZeroBitCount } ?? 0
        guard bits >= minimumRSAModulusBits, let last = significant.last, last & 1 == 1 else {
            throw .malformed("an RS256 key's modulus 'n' must be odd and at least \(minimumRSAModulusBits) bits, "
                + "not \(bits)")
        }
    }

    private func bytes(_ member: String?, _ name: String) throws(JWSError) -> Data {
        guard let member else { throw .malformed("the \(kty) key has no '\(name)'") }
        guard let data = LenientBase64.decode(member), !data.isEmpty else {
            throw .malformed("the key's '\(name)' is not base64url")
        }
        return data
    }
}
