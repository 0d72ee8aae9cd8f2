import Foundation
import Testing
@testable import WebPushWire

/// VAPID headers as py-vapid (what pywebpush signs with) writes them, checked as RFC 8292 says a push service must.
struct VAPIDTests {
    let now = VAPIDVectors.now
    let origin = VAPIDVectors.origin

    func key(of header: String) throws -> Data {
        try #require(try VAPIDAuthorization(header: header)).publicKey
    }

    @Test func aSignedHeaderVerifiesAndGivesItsContact() throws {
        let vapid = try #require(try VAPIDAuthorization(header: VAPIDVectors.valid))
        #expect(vapid.publicKey.count == 65)
        #expect(try vapid.verify(origin: origin, now: now) == "mailto:ops@example.net")
    }

    @Test func aRestrictedSubscriptionTakesItsOwnKeyOnly() throws {
        let subscriptionKey = try key(of: VAPIDVectors.valid)
        #expect(try VAPIDAuthorization.authorize(VAPIDVectors.valid, subscriptionKey: subscriptionKey, origin: origin, now: now) != nil)
        #expect(throws: WebPushRefusal.self) {
            try VAPIDAuthorization.authorize(VAPIDVectors.otherSigner, subscriptionKey: subscriptionKey, origin: origin, now: now)
        }
        let missing = #expect(throws: WebPushRefusal.self) {
            try VAPIDAuthorization.authorize(nil, subscriptionKey: subscriptionKey, origin: origin, now: now)
        }
        #expect(missing?.status == 401)
        let other = #expect(throws: WebPushRefusal.self) {
            try VAPIDAuthorization.authorize(VAPIDVectors.otherSigner, subscriptionKey: subscriptionKey, origin: origin, now: now)
        }
        #expect(other?.status == 403)
    }

    @Test func anOpenSubscriptionTakesNoVAPIDButChecksWhatComes() throws {
        #expect(try VAPIDAuthorization.authorize(nil, subscriptionKey: nil, origin: origin, now: now) == nil)
        #expect(try VAPIDAuthorization.authorize(VAPIDVectors.otherSigner, subscriptionKey: nil, origin: origin, now: now) != nil)
        let expired = #expect(throws: WebPushRefusal.self) {
            try VAPIDAuthorization.authorize(VAPIDVectors.expired, subscriptionKey: nil, origin: origin, now: now)
        }
        #expect(expired?.status == 403)
    }

    @Test(arguments: [
        (VAPIDVectors.expired, "expired"),
        (VAPIDVectors.tooLong, "at most 24 hours"),
        (VAPIDVectors.otherAudience, "must be its origin"),
    ])
    func claimsOutsideTheRulesAreRefused(header: String, says: String) throws {
        let vapid = try #require(try VAPIDAuthorization(header: header))
        let refusal = #expect(throws: WebPushRefusal.self) { try vapid.verify(origin: origin, now: now) }
        #expect(refusal?.status == 403)
        #expect(refusal?.reason.contains(says) == true)
    }

    @Test func aTokenSignedByAnotherKeyThanKIsRefused() throws {
        var vapid = try #require(try VAPIDAuthorization(header: VAPIDVectors.otherSigner))
        vapid.publicKey = try key(of: VAPIDVectors.valid)
        let refusal = #expect(throws: WebPushRefusal.self) { try vapid.verify(origin: origin, now: now) }
        #expect(refusal?.reason.contains("does not verify") == true)
    }

    @Test func aTamperedClaimBreaksTheSignature() throws {
        var vapid = try #require(try VAPIDAuthorization(header: VAPIDVectors.valid))
        var parts = vapid.token.split(separator: ".").map(String.init)
        parts[1] = Data(#"{"aud":"https://push.example.net","exp":1800003600}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        vapid.token = parts.joined(separator: ".")
        #expect(throws: WebPushRefusal.self) { try vapid.verify(origin: origin, now: now) }
    }

    @Test func onlyES256IsTaken() throws {
        var vapid = try #require(try VAPIDAuthorization(header: VAPIDVectors.valid))
        let none = Data(#"{"typ":"JWT","alg":"none"}"#.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
        vapid.token = none + vapid.token.drop(while: { $0 != "." })
        let refusal = #expect(throws: WebPushRefusal.self) { try vapid.verify(origin: origin, now: now) }
        #expect(refusal?.reason.contains("ES256 only") == true)
    }

    @Test(arguments: [
        "Bearer abc", "WebPush eyJ.eyJ.sig", "vapid t=abc", "vapid k=BA", "vapid t=a.b.c, k=not base64!",
        "vapid t=a.b.c, k=AAAA",
    ])
    func malformedHeadersSayWhatIsWrong(header: String) {
        let refusal = #expect(throws: WebPushRefusal.self) { try VAPIDAuthorization(header: header) }
        #expect([401, 403].contains(refusal?.status ?? 0))
    }

    @Test func noHeaderIsNoCredentials() throws {
        #expect(try VAPIDAuthorization(header: nil) == nil)
    }

    /// py-vapid writes `aud` as `https://push.example.net`; the same origin spelled with capitals or its default port
    /// is the same origin (RFC 6454), another port or scheme is not.
    @Test(arguments: [("https://PUSH.example.net", true), ("https://push.example.net:443", true), ("https://push.example.net/", true),
                      ("https://push.example.net:8443", false), ("http://push.example.net", false), ("https://example.net", false)])
    func theAudienceIsComparedAsAnOrigin(origin: String, accepted: Bool) throws {
        let vapid = try #require(try VAPIDAuthorization(header: VAPIDVectors.valid))
        if accepted {
            #expect(try vapid.verify(origin: origin, now: now) != nil)
        } else {
            #expect(throws: WebPushRefusal.self) { try vapid.verify(origin: origin, now: now) }
        }
    }
}
