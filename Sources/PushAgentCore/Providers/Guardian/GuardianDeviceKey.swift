import CryptoExtras
import Foundation

/// The RSA key pair a Guardian enrollment registers (protocols.md §10.2): RSA-2048, e = 65537, as both
/// SDKs make it; its public half goes to Guardian as a JWK, its private half signs every answer.
public struct GuardianDeviceKey: Sendable {
    public let privateKey: _RSA.Signing.PrivateKey

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public static func generate() throws(Failure) -> GuardianDeviceKey {
        do {
            return GuardianDeviceKey(privateKey: try _RSA.Signing.PrivateKey(keySize: .bits2048))
        } catch {
            throw Failure(description: "cannot generate an RSA key: \(error)")
        }
    }

    public init(privateKey: _RSA.Signing.PrivateKey) {
        self.privateKey = privateKey
    }

    /// From the stored PKCS#1 or PKCS#8 DER.
    public init(derRepresentation: Data) throws(Failure) {
        do {
            privateKey = try _RSA.Signing.PrivateKey(derRepresentation: derRepresentation)
        } catch {
            throw Failure(description: "the stored Guardian device key is unreadable: \(error)")
        }
    }

    public var derRepresentation: Data { privateKey.derRepresentation }

    /// `public_key` of the enrollment: `kty`, `alg`, `use`, `n`, `e`. `n` and `e` are minimal big-endian
    /// (RFC 7518 §6.3.1); both SDKs keep a leading zero byte when the top bit is set, which the server accepts
    /// as well, and guardian-bash's Node-made JWKs (minimal) are accepted too (§10.7).
    public func publicJWK() throws(Failure) -> GuardianJWK {
        let primitives: _RSA.Signing.PublicKey.Primitives
        do {
            primitives = try privateKey.publicKey.getKeyPrimitives()
        } catch {
            throw Failure(description: "cannot read the RSA public key: \(error)")
        }
        return GuardianJWK(n: Data(primitives.modulus.drop { $0 == 0 }).base64URLUnpadded,
                           e: Data(primitives.publicExponent.drop { $0 == 0 }).base64URLUnpadded)
    }
}

/// An RSA public JWK as Guardian takes it.
public struct GuardianJWK: Codable, Sendable, Equatable {
    public var kty = "RSA"
    public var alg = "RS256"
    public var use = "sig"
    public var n: String
    public var e: String

    public init(n: String, e: String) {
        self.n = n
        self.e = e
    }
}
