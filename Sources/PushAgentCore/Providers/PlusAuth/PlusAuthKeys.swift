import Crypto
import CryptoExtras
import Foundation
import SwiftASN1

/// The device key pair of a PlusAuth account, as a private JWK (the public one is `publicKey` of it). PlusAuth's
/// enrollment uploads both halves (protocols.md §2.2), so the server can sign pushes "with the private key".
public enum PlusAuthKeys {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// A fresh key pair for `algorithm`, with `alg`, `use: sig` and `kid` (its RFC 7638 thumbprint) set.
    public static func generate(_ algorithm: PlusAuthAlgorithm) throws(Failure) -> PlusAuthJWK {
        var jwk = switch algorithm {
        case .es256: ecJWK(P256.Signing.PrivateKey())
        case .rs256: try rsaJWK(generatingRSA())
        }
        jwk.alg = algorithm.rawValue
        jwk.use = "sig"
        jwk.kid = jwk.thumbprint
        return jwk
    }

    static func ecJWK(_ key: P256.Signing.PrivateKey) -> PlusAuthJWK {
        // x9.63: 0x04 || X (32 bytes) || Y (32 bytes).
        let point = key.publicKey.x963Representation
        return PlusAuthJWK(kty: "EC", crv: "P-256", x: point[1..<33].base64URLUnpadded,
                           y: point[33..<65].base64URLUnpadded, d: key.rawRepresentation.base64URLUnpadded)
    }

    private static func generatingRSA() throws(Failure) -> _RSA.Signing.PrivateKey {
        do {
            return try _RSA.Signing.PrivateKey(keySize: .bits2048)
        } catch {
            throw Failure(description: "cannot generate an RSA key: \(error)")
        }
    }

    /// Every RFC 7518 §6.3 member, CRT ones included (servers such as Node's `crypto` refuse RSA private JWKs
    /// without them). CryptoExtras exposes them only inside the key's PKCS#1 DER, so that is read here.
    static func rsaJWK(_ key: _RSA.Signing.PrivateKey) throws(Failure) -> PlusAuthJWK {
        let numbers: [String]
        do {
            numbers = try DER.sequence(DER.parse(Array(key.derRepresentation)), identifier: .sequence) { nodes in
                // RSAPrivateKey ::= SEQUENCE { version, n, e, d, p, q, dp, dq, qi } (RFC 8017 A.1.2), two-prime only.
                guard try Int(derEncoded: &nodes) == 0 else { throw Failure(description: "multi-prime RSA keys are not supported") }
                return try (0..<8).map { _ in
                    Data(try ArraySlice<UInt8>(derEncoded: &nodes).drop { $0 == 0 }).base64URLUnpadded
                }
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(description: "cannot read the RSA key: \(error)")
        }
        return PlusAuthJWK(kty: "RSA", n: numbers[0], e: numbers[1], d: numbers[2], p: numbers[3], q: numbers[4],
                           dp: numbers[5], dq: numbers[6], qi: numbers[7])
    }
}
