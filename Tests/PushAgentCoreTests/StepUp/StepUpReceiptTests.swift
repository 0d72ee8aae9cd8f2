import Foundation
@testable import PushAgentCore
import Testing

struct StepUpReceiptTests {
    /// RFC 7517 Appendix A.2's EC private key (`d`); A.1 gives its public `x`/`y`.
    static let rfc7517 = (
        d: "870MB6gfuTJ4HtUnUvYMyJpr5eUZNP4Bk43bVdj3eAE",
        x: "MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4",
        y: "4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM")

    @Test func publicJWKAndThumbprintOfTheRFC7517Key() throws {
        let key = try DeviceSigningKey(rawRepresentation: try #require(LenientBase64.decode(Self.rfc7517.d)))
        let jwk = key.publicJWK
        #expect(jwk.x == Self.rfc7517.x && jwk.y == Self.rfc7517.y)
        #expect(jwk.kty == "EC" && jwk.crv == "P-256" && jwk.alg == "ES256" && jwk.use == "sig")
        // RFC 7638 thumbprint of that key; the same value is pinned in the tw2023_wallet project's SignatureUtilTests
        // (testToJwkThumbprint) and reproduced with Python's hashlib over the RFC 7638 §3.2 member string.
        #expect(jwk.kid == "cn-I_WNMClehiVp51i_0VpOENW1upEerA8sEam5hn-s")
    }

    static let claims = StepUpReceiptClaims(approvalId: "apr_abc", issuedAt: 1_700_000_000, expiresAt: 1_700_000_120,
                                            authTime: 1_700_000_000, businessNumber: "BN-1", audience: "https://api.example")
    static let during = Date(timeIntervalSince1970: 1_700_000_060)

    @Test func signedReceiptVerifiesAndSaysWhatWasApproved() async throws {
        let key = DeviceSigningKey.generate()
        let token = try await StepUpReceipt.sign(Self.claims, with: key)
        let header = try CompactJWS.header(of: token)
        #expect(header["alg"]?.stringValue == "ES256")
        #expect(header["typ"]?.stringValue == "pushagent-stepup+jwt")
        #expect(header["kid"]?.stringValue == key.publicJWK.kid)
        let payload = try CompactJWS.unverifiedPayload(of: token, as: [String: JSONValue].self)
        #expect(payload["jti"]?.stringValue == "apr_abc" && payload["business_number"]?.stringValue == "BN-1")
        let verified = try await StepUpReceipt.verify(token, keys: JWKSet(keys: [key.publicJWK]), businessNumber: "BN-1",
                                                      audience: "https://api.example", now: Self.during)
        #expect(verified == Self.claims)
    }

    @Test func refusals() async throws {
        let key = DeviceSigningKey.generate()
        let keys = JWKSet(keys: [key.publicJWK])
        let token = try await StepUpReceipt.sign(Self.claims, with: key)
        func refusal(_ token: String, keys: JWKSet = keys, businessNumber: String? = "BN-1",
                     audience: String? = nil, now: Date = Self.during) async -> StepUpReceiptError? {
            do {
                _ = try await StepUpReceipt.verify(token, keys: keys, businessNumber: businessNumber, audience: audience, now: now)
                return nil
            } catch { return error }
        }
        #expect(await refusal(token, now: Date(timeIntervalSince1970: 1_700_000_200)) == .expired(at: 1_700_000_120))
        #expect(await refusal(token, now: Date(timeIntervalSince1970: 1_699_999_000)) == .notYetValid(issuedAt: 1_700_000_000))
        #expect(await refusal(token, businessNumber: "BN-2") == .otherChallenge("it answers business number BN-1, not BN-2"))
        #expect(await refusal(token, audience: "https://evil.example") == .otherChallenge("it is for https://api.example, not https://evil.example"))
        #expect(await refusal(token, keys: JWKSet(keys: [DeviceSigningKey.generate().publicJWK]))?.description.contains("not among the device keys") == true)

        let parts = token.split(separator: ".").map(String.init)
        let otherClaims = try await StepUpReceipt.sign(
            StepUpReceiptClaims(approvalId: "apr_other", issuedAt: 1_700_000_000, expiresAt: 1_700_000_120,
                                authTime: 1_700_000_000, businessNumber: "BN-1", audience: nil), with: key)
        let spliced = [parts[0], String(otherClaims.split(separator: ".")[1]), parts[2]].joined(separator: ".")
        #expect(await refusal(spliced) == .badSignature)

        // A header naming HS256 (the classic key-confusion forgery) or no typ is refused before any key is used.
        let hs256 = #"{"alg":"HS256","typ":"pushagent-stepup+jwt","kid":"\#(key.publicJWK.kid)"}"#
        #expect(await refusal([Data(hs256.utf8).base64URLUnpadded, parts[1], parts[2]].joined(separator: ".")) == .algorithmNotAllowed("HS256"))
        let untyped = #"{"alg":"ES256","kid":"\#(key.publicJWK.kid)"}"#
        #expect(await refusal([Data(untyped.utf8).base64URLUnpadded, parts[1], parts[2]].joined(separator: ".")) == .wrongType("none"))
        #expect(await refusal("not.a-jwt") != nil)
    }
}
