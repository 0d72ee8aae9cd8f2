import Crypto
import Foundation

/// The JWS algorithms a PlusAuth account can be enrolled with. PlusAuth documents only "a JWK KeyPair"
/// (protocols.md §2.6.3), so the choice is a setting; each account keeps the one it was enrolled with.
public enum PlusAuthAlgorithm: String, Codable, Sendable, CaseIterable {
    /// ECDSA on P-256 with SHA-256: the default.
    case es256 = "ES256"
    /// RSASSA-PKCS1-v1_5 with SHA-256 and a 2048-bit key.
    case rs256 = "RS256"

    /// The JWK `kty` this algorithm's keys have.
    var keyType: String { self == .es256 ? "EC" : "RSA" }
}

/// A JSON Web Key (RFC 7517, members of RFC 7518 §6) as PlusAuth exchanges them: EC P-256 or RSA, with or without
/// the private members. Absent members are left out of the JSON.
public struct PlusAuthJWK: Codable, Sendable, Equatable {
    public var kty: String
    public var crv: String?
    public var x: String?
    public var y: String?
    public var n: String?
    public var e: String?
    /// The private key (EC scalar or RSA private exponent); the RSA CRT members below come with it.
    public var d: String?
    public var p: String?
    public var q: String?
    public var dp: String?
    public var dq: String?
    public var qi: String?
    public var alg: String?
    public var use: String?
    public var kid: String?

    public var isPrivate: Bool { d != nil }

    /// The same key without its private members.
    public var publicKey: PlusAuthJWK {
        PlusAuthJWK(kty: kty, crv: crv, x: x, y: y, n: n, e: e, alg: alg, use: use, kid: kid)
    }

    /// The RFC 7638 thumbprint (base64url SHA-256 of the required public members in lexicographic order), or nil
    /// when a required member is missing.
    public var thumbprint: String? {
        let members: [String: String?] = switch kty {
        case "EC": ["crv": crv, "kty": kty, "x": x, "y": y]
        case "RSA": ["e": e, "kty": kty, "n": n]
        default: [:]
        }
        let required = members.compactMapValues { $0 }
        guard !required.isEmpty, required.count == members.count else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let canonical = try? encoder.encode(required) else { return nil }
        return Data(SHA256.hash(data: canonical)).base64URLUnpadded
    }

    /// Whether both describe the same public key (what a server checks of an uploaded pair).
    public func hasSamePublicKey(as other: PlusAuthJWK) -> Bool {
        thumbprint != nil && thumbprint == other.thumbprint
    }
}
