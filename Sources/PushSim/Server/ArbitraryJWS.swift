import Crypto
import Foundation
import PushAgentCore

/// A compact JWS with whatever header and claims a test asks for (`POST /sim/<provider>/push-claims`). The sim's
/// ordinary pushes are signed the way the provider signs them; these are the pushes an attacker or a broken
/// server could send, so nothing here checks that they make sense.
struct ArbitraryJWS {
    var header: [String: JSONValue]
    var claims: [String: JSONValue]
    /// Claims whose value is JSON text written into the payload as given, unparsed: JSON too deep (or too broken)
    /// for any decoder still reaches the agent.
    var rawClaims: [String: String]

    /// `header.payload.signature`, the signature made by `sign` over `header.payload`.
    func compact(sign: (Data) throws -> Data) throws -> String {
        let input = try Self.segment(header, raw: [:]) + "." + Self.segment(claims, raw: rawClaims)
        return input + "." + (try sign(Data(input.utf8))).base64URLUnpadded
    }

    private static func segment(_ object: [String: JSONValue], raw: [String: String]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var json = String(decoding: try encoder.encode(object.filter { raw[$0.key] == nil }), as: UTF8.self)
        if !raw.isEmpty {
            let members = try raw.sorted { $0.key < $1.key }.map { key, text in
                String(decoding: try encoder.encode(key), as: UTF8.self) + ":" + text
            }
            json.removeLast()
            json += (json == "{" ? "" : ",") + members.joined(separator: ",") + "}"
        }
        return Data(json.utf8).base64URLUnpadded
    }

    /// A Codable value as a JSON object, to merge a request's claims over.
    static func object(_ value: some Encodable) throws -> [String: JSONValue] {
        guard case .object(let members) = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value)) else {
            return [:]
        }
        return members
    }

    static func hmacSHA256(key: Data) -> (Data) -> Data {
        { Data(HMAC<SHA256>.authenticationCode(for: $0, using: SymmetricKey(data: key))) }
    }
}

extension SimAdminAPI.ClaimsPushRequest {
    /// `defaults` with the request's claims over them; a `null` claim removes the member.
    func claims(over defaults: [String: JSONValue]) -> [String: JSONValue] {
        (claims ?? [:]).reduce(into: defaults) { merged, member in
            merged[member.key] = member.value == .null ? nil : member.value
        }
    }

    /// The header `alg` (and `typ: JWT`) names, with the request's header members over it.
    func header(algorithm: String) -> [String: JSONValue] {
        (header ?? [:]).reduce(into: ["alg": .string(algorithm), "typ": .string("JWT")]) { merged, member in
            merged[member.key] = member.value == .null ? nil : member.value
        }
    }

    var signingMode: Signing { get throws(AdminFailure) {
        guard let name = signing else { return .account }
        guard let mode = Signing(rawValue: name) else {
            throw .invalidArgument("signing must be account, other_key, none or hmac_public_key, not '\(name)'")
        }
        return mode
    } }

    /// The JWT, for the test's eyes only (`dry_run`), or sent through the relay to `token` as `data`.
    func deliver(_ data: [String: String], to token: String, relay: RelaySender) async throws(AdminFailure)
        -> SimAdminAPI.RawPush {
        if dryRun != true {
            do {
                try await relay.send(token: token, data: data, ttlSeconds: 120)
            } catch {
                throw AdminFailure(status: 502, code: "upstream", message: error.description)
            }
        }
        return SimAdminAPI.RawPush(deviceToken: token, data: data)
    }
}

extension SimAdminAPI {
    /// `POST /sim/forgerock/push-claims` and `/sim/plusauth/push-claims`: a push JWT with the sim's usual claims
    /// for the account, changed as asked, signed as asked.
    public struct ClaimsPushRequest: Codable, Sendable {
        /// How the JWT is signed.
        public enum Signing: String, Codable, Sendable {
            /// The account's own key and algorithm: a valid signature over whatever the claims say.
            case account
            /// A fresh key of the account's kind: a well-formed signature no enrolled key verifies.
            case otherKey = "other_key"
            /// `alg: none` and an empty signature.
            case none
            /// HS256 keyed with the account's public key (its JWK as JSON): the asymmetric-to-HMAC confusion.
            case hmacPublicKey = "hmac_public_key"
        }

        /// Default: the most recently registered account.
        public var account: String?
        /// Merged over the sim's usual claims; `null` removes one.
        public var claims: [String: JSONValue]?
        /// Claims written into the payload as the given JSON text, unparsed (deeply nested, or not even JSON).
        public var rawClaims: [String: String]?
        /// Merged over the header the signing produces (`alg`, `typ`); `null` removes a member.
        public var header: [String: JSONValue]?
        /// `account` (default), `other_key`, `none` or `hmac_public_key`.
        public var signing: String?
        /// ForgeRock: the FCM `messageId`; default a new `AUTHENTICATE:…` one.
        public var messageId: String?
        /// Return the push's data without sending it.
        public var dryRun: Bool?

        public init(account: String? = nil, claims: [String: JSONValue]? = nil, rawClaims: [String: String]? = nil,
                    header: [String: JSONValue]? = nil, signing: Signing? = nil, messageId: String? = nil,
                    dryRun: Bool? = nil) {
            self.account = account
            self.claims = claims
            self.rawClaims = rawClaims
            self.header = header
            self.signing = signing?.rawValue
            self.messageId = messageId
            self.dryRun = dryRun
        }

        enum CodingKeys: String, CodingKey {
            case account, claims, rawClaims = "raw_claims", header, signing, messageId = "message_id", dryRun = "dry_run"
        }
    }

    /// A push as it goes to the relay: the device's token and the FCM `data`.
    public struct RawPush: Codable, Sendable {
        public var deviceToken: String
        public var data: [String: String]

        enum CodingKeys: String, CodingKey { case deviceToken = "device_token", data }
    }
}
