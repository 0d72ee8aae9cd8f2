import Crypto
import Foundation

/// The device's P-256 key that signs step-up receipts. The daemon makes it once and keeps it in its store;
/// servers learn its public half as a JWK.
public struct DeviceSigningKey: Sendable {
    let privateKey: P256.Signing.PrivateKey

    public init(rawRepresentation: Data) throws {
        privateKey = try P256.Signing.PrivateKey(rawRepresentation: rawRepresentation)
    }

    private init(_ key: P256.Signing.PrivateKey) { privateKey = key }

    public static func generate() -> DeviceSigningKey { DeviceSigningKey(P256.Signing.PrivateKey()) }

    /// The 32-byte scalar, for the store (never logged, never sent).
    public var rawRepresentation: Data { privateKey.rawRepresentation }

    public var publicJWK: PublicJWK { PublicJWK(privateKey.publicKey) }
}

/// An EC P-256 public key as a JWK (RFC 7517/7518), its `kid` the RFC 7638 thumbprint so it names the key itself.
public struct PublicJWK: Codable, Sendable, Equatable {
    public var kty: String
    public var crv: String
    public var x: String
    public var y: String
    public var kid: String
    public var use: String?
    public var alg: String?

    init(_ key: P256.Signing.PublicKey) {
        // X9.63 form: 0x04 || X (32 bytes) || Y (32 bytes).
        let point = key.x963Representation
        kty = "EC"
        crv = "P-256"
        x = Data(point[1..<33]).base64URLUnpadded
        y = Data(point[33..<65]).base64URLUnpadded
        kid = Self.thumbprint(x: x, y: y)
        use = "sig"
        alg = "ES256"
    }

    /// RFC 7638 §3.2: SHA-256 over the required members in lexicographic order, without whitespace.
    static func thumbprint(x: String, y: String) -> String {
        Data(SHA256.hash(data: Data(#"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#.utf8))).base64URLUnpadded
    }

    /// The key to verify with; refuses anything but an EC P-256 key with 32-byte coordinates.
    func p256PublicKey() throws(StepUpReceiptError) -> P256.Signing.PublicKey {
        guard kty == "EC", crv == "P-256", alg == nil || alg == "ES256" else {
            throw .unusableKey(kid: kid, "only EC P-256 keys for ES256 sign receipts (got kty \(kty), crv \(crv))")
        }
        guard let x = LenientBase64.decode(x), let y = LenientBase64.decode(y), x.count == 32, y.count == 32,
              let key = try? P256.Signing.PublicKey(x963Representation: [0x04] + x + y) else {
            throw .unusableKey(kid: kid, "its x/y are not a point on P-256")
        }
        return key
    }
}

/// A JWK Set (RFC 7517 §5), as `GET /v1/jwks` publishes the device's keys.
public struct JWKSet: Codable, Sendable, Equatable {
    public var keys: [PublicJWK]
    public init(keys: [PublicJWK]) { self.keys = keys }
}
