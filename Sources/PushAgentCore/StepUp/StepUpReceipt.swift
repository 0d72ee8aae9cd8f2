import Crypto
import Foundation
import JWTKit

/// What a step-up receipt says: the user approved step-up `approvalId` (for this business number and audience)
/// at `authTime`; valid from `issuedAt` to `expiresAt`. JSON names are JWT claim names.
public struct StepUpReceiptClaims: Codable, Sendable, Equatable {
    /// `jti`: the approval's id; a server accepts each receipt once.
    public var approvalId: String
    public var issuedAt: Int64
    public var expiresAt: Int64
    /// When the user approved (RFC 9470 servers look at `auth_time`).
    public var authTime: Int64
    /// The challenge's business number, when it had one: a receipt answers that challenge only.
    public var businessNumber: String?
    /// The server the caller named (its origin), when it named one.
    public var audience: String?

    public init(approvalId: String, issuedAt: Int64, expiresAt: Int64, authTime: Int64, businessNumber: String?,
                audience: String?) {
        self.approvalId = approvalId
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.authTime = authTime
        self.businessNumber = businessNumber
        self.audience = audience
    }

    enum CodingKeys: String, CodingKey {
        case approvalId = "jti", issuedAt = "iat", expiresAt = "exp", authTime = "auth_time"
        case businessNumber = "business_number", audience = "aud"
    }
}

/// Step-up receipts: compact JWS, ES256 only, `typ` pinned, signed by the device key (docs/stepup.md).
public enum StepUpReceipt {
    public static let type = "pushagent-stepup+jwt"
    public static let algorithm = "ES256"

    public static func sign(_ claims: StepUpReceiptClaims, with key: DeviceSigningKey) async throws -> String {
        let kid = JWKIdentifier(string: key.publicJWK.kid)
        let keys = await JWTKeyCollection().add(ecdsa: try ES256PrivateKey(backing: key.privateKey), kid: kid)
        var header = JWTHeader()
        header.typ = type
        return try await keys.sign(ClaimsPayload(claims: claims), kid: kid, header: header)
    }

    /// What a server checks: header (`alg`, `typ`, `kid` among `keys`), signature, time (with `leeway` seconds for
    /// clock skew), then that the receipt answers the challenge the server issued. Replay (`jti` seen before) is the
    /// server's own check.
    public static func verify(_ token: String, keys: JWKSet, businessNumber: String?, audience: String?,
                              now: Date = Date(), leeway: Int64 = 30) async throws(StepUpReceiptError) -> StepUpReceiptClaims {
        let header: [String: JSONValue]
        do { header = try CompactJWS.header(of: token) } catch { throw .malformed(error.description) }
        guard header["alg"]?.stringValue == algorithm else { throw .algorithmNotAllowed(header["alg"]?.stringValue ?? "none") }
        guard header["typ"]?.stringValue == type else { throw .wrongType(header["typ"]?.stringValue ?? "none") }
        guard let kid = header["kid"]?.stringValue, let jwk = keys.keys.first(where: { $0.kid == kid }) else {
            throw .unknownKey(header["kid"]?.stringValue ?? "none")
        }
        let collection = await JWTKeyCollection().add(ecdsa: try publicKey(jwk), kid: JWKIdentifier(string: kid))
        let claims: StepUpReceiptClaims
        do {
            claims = try await collection.verify(token, as: ClaimsPayload<StepUpReceiptClaims>.self).claims
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw .badSignature
        } catch {
            throw .malformed("the claims do not decode: \(error)")
        }
        let seconds = Int64(now.timeIntervalSince1970)
        guard claims.expiresAt + leeway > seconds else { throw .expired(at: claims.expiresAt) }
        guard claims.issuedAt - leeway <= seconds else { throw .notYetValid(issuedAt: claims.issuedAt) }
        if let businessNumber, claims.businessNumber != businessNumber {
            throw .otherChallenge("it answers business number \(claims.businessNumber ?? "(none)"), not \(businessNumber)")
        }
        if let audience, claims.audience != audience {
            throw .otherChallenge("it is for \(claims.audience ?? "(no audience)"), not \(audience)")
        }
        return claims
    }

    private static func publicKey(_ jwk: PublicJWK) throws(StepUpReceiptError) -> ES256PublicKey {
        let key = try jwk.p256PublicKey()
        do { return try ES256PublicKey(backing: key) } catch { throw .unusableKey(kid: jwk.kid, "\(error)") }
    }
}

/// Why a receipt was refused; the text says what a server operator needs to know.
public enum StepUpReceiptError: Error, Equatable, CustomStringConvertible {
    case malformed(String)
    case algorithmNotAllowed(String)
    case wrongType(String)
    case unknownKey(String)
    case unusableKey(kid: String, String)
    case badSignature
    case expired(at: Int64)
    case notYetValid(issuedAt: Int64)
    case otherChallenge(String)

    public var description: String {
        switch self {
        case .malformed(let why): "the receipt is malformed: \(why)"
        case .algorithmNotAllowed(let alg): "receipt algorithm '\(alg)' is not allowed (only ES256)"
        case .wrongType(let typ): "the token's typ is '\(typ)', not '\(StepUpReceipt.type)': it is not a step-up receipt"
        case .unknownKey(let kid): "the receipt is signed by key '\(kid)', which is not among the device keys you trust (GET /v1/jwks, `pushctl jwks`)"
        case .unusableKey(let kid, let why): "device key '\(kid)' cannot verify receipts: \(why)"
        case .badSignature: "the receipt's signature does not verify"
        case .expired(let at): "the receipt expired at \(Date(timeIntervalSince1970: TimeInterval(at)).formatted(.iso8601))"
        case .notYetValid(let iat): "the receipt is issued in the future (\(Date(timeIntervalSince1970: TimeInterval(iat)).formatted(.iso8601))): check the clocks"
        case .otherChallenge(let why): "the receipt answers another challenge: \(why)"
        }
    }
}
