import Crypto
import Foundation

/// `Authorization: vapid t=<JWT>, k=<key>` (RFC 8292 §3): an application server's signed claim that it is the one a
/// subscription was made for. The JWT is ES256 only (§2), its `aud` the push resource's origin and its `exp` at most
/// 24 hours ahead; `k` is the P-256 public key, uncompressed, in unpadded base64url.
public struct VAPIDAuthorization: Sendable, Equatable {
    public var token: String
    /// The 65-byte uncompressed point, as `k` carried it.
    public var publicKey: Data

    /// RFC 8292 §2: a push service refuses an `exp` further ahead than this.
    public static let longestValidity: Int64 = 24 * 60 * 60
    /// Clocks differ: an `exp` this far past the limit, or a token this far past its `exp`, is still taken.
    public static let clockSkew: Int64 = 60

    /// Reads the header's value; nil when the request carries no `vapid` credentials at all.
    public init?(header: String?) throws(WebPushRefusal) {
        guard let header else { return nil }
        let trimmed = header.drop(while: { $0 == " " })
        guard let space = trimmed.firstIndex(of: " "), trimmed[..<space].lowercased() == "vapid" else {
            throw .unauthorized("the Authorization header is not 'vapid t=<JWT>, k=<public key>' (RFC 8292 §3); the drafts' 'WebPush' scheme is not taken")
        }
        var parameters: [String: String] = [:]
        for part in trimmed[space...].split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { throw .unauthorized("the vapid credentials are not name=value pairs separated by commas (RFC 8292 §3)") }
            parameters[pair[0].trimmingCharacters(in: .whitespaces).lowercased()] = pair[1].trimmingCharacters(in: .whitespaces)
        }
        guard let token = parameters["t"], let key = parameters["k"] else {
            throw .unauthorized("the vapid credentials need both t (the JWT) and k (the public key) (RFC 8292 §3)")
        }
        guard let publicKey = Self.base64URL(key), publicKey.count == 65, publicKey.first == 0x04 else {
            throw .forbidden("k is not a P-256 public key in uncompressed form, base64url without padding (RFC 8292 §3.2)")
        }
        self.token = token
        self.publicKey = publicKey
    }

    /// RFC 8292 §4.2 for one request: a subscription made with an application server key takes only messages with
    /// VAPID by that key (401 without, 403 with another or an invalid one); one made without takes messages without
    /// VAPID, and checks the VAPID of those that carry it. Returns the sender's `sub` contact, if it gave one.
    @discardableResult
    public static func authorize(_ header: String?, subscriptionKey: Data?, origin: String, now: Int64) throws(WebPushRefusal) -> String? {
        try authorize(credentials: VAPIDAuthorization(header: header), subscriptionKey: subscriptionKey, origin: origin, now: now)
    }

    /// The same for credentials already read from the header (`init(header:)`), so that a caller who needs the
    /// verified key afterwards (the relay's per-key rate limit) reads the header once.
    @discardableResult
    public static func authorize(credentials vapid: VAPIDAuthorization?, subscriptionKey: Data?, origin: String, now: Int64) throws(WebPushRefusal) -> String? {
        guard let vapid else {
            if subscriptionKey != nil {
                throw .unauthorized("this subscription was made with an application server key: its messages need 'Authorization: vapid t=<JWT>, k=<that key>' (RFC 8292 §4)")
            }
            return nil
        }
        if let subscriptionKey, vapid.publicKey != subscriptionKey {
            throw .forbidden("k is not the application server key this subscription was made with (RFC 8292 §4.2)")
        }
        return try vapid.verify(origin: origin, now: now)
    }

    /// Checks the JWT against `k` and the push resource: signature (ES256 only), `aud` the same origin as `origin`, `exp` in
    /// the future and at most 24 hours away. Returns the `sub` contact the sender gave, if any.
    @discardableResult
    public func verify(origin: String, now: Int64) throws(WebPushRefusal) -> String? {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let headerData = Self.base64URL(segments[0]), let claimsData = Self.base64URL(segments[1]),
              let signatureData = Self.base64URL(segments[2]) else {
            throw .forbidden("t is not a JWT (three base64url parts separated by dots)")
        }
        guard let header = try? JSONDecoder().decode(Header.self, from: headerData) else {
            throw .forbidden("the JWT's header is not JSON")
        }
        guard header.alg == "ES256" else {
            throw .forbidden("the JWT is signed with '\(header.alg.map { WebPushRequest.excerpt($0) } ?? "no algorithm")'; VAPID takes ES256 only (RFC 8292 §2)")
        }
        guard let key = try? P256.Signing.PublicKey(x963Representation: publicKey) else {
            throw .forbidden("k is not a point on P-256")
        }
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureData),
              key.isValidSignature(signature, for: Data(token[..<segments[1].endIndex].utf8)) else {
            throw .forbidden("the JWT's signature does not verify with k: it was not signed by the key the request names")
        }
        guard let claims = try? JSONDecoder().decode(Claims.self, from: claimsData) else {
            throw .forbidden("the JWT's claims are not JSON with a string aud and a numeric exp (RFC 8292 §2)")
        }
        guard let audience = URLOrigin.parse(claims.aud), ["", "/"].contains(audience.path),
              audience.origin == URLOrigin.parse(origin)?.origin else {
            throw .forbidden("the JWT's aud is '\(WebPushRequest.excerpt(claims.aud))'; for this push resource it must be its origin, '\(origin)' (RFC 8292 §2)")
        }
        guard claims.exp + Self.clockSkew > now else {
            throw .forbidden("the JWT expired at \(claims.exp) (it is now \(now)): sign a new one")
        }
        guard claims.exp <= now + Self.longestValidity + Self.clockSkew else {
            throw .forbidden("the JWT's exp is \(claims.exp - now) s away; VAPID allows at most 24 hours (RFC 8292 §2)")
        }
        return claims.sub
    }

    private struct Header: Decodable { var alg: String? }

    private struct Claims: Decodable {
        var aud: String
        var exp: Int64
        var sub: String?
    }

    /// Unpadded URL-safe base64 only, as RFC 7515 §2 writes JWT parts and RFC 8292 writes `k`.
    public static func base64URL(_ text: some StringProtocol) -> Data? {
        let bytes = Array(text.utf8)
        guard bytes.count % 4 != 1, bytes.allSatisfy(WebPushRequest.isBase64URLCharacter) else { return nil }
        var standard = bytes.map { $0 == UInt8(ascii: "-") ? UInt8(ascii: "+") : $0 == UInt8(ascii: "_") ? UInt8(ascii: "/") : $0 }
        standard += repeatElement(UInt8(ascii: "="), count: (4 - bytes.count % 4) % 4)
        return Data(base64Encoded: Data(standard))
    }
}
