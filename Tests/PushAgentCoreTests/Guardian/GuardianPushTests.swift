import Foundation
import Testing
@testable import PushAgentCore

@Suite struct GuardianPushTests {
    typealias V = GuardianVectors
    static let receivedAt = V.iosPushStartedAt.addingTimeInterval(5)

    static func push(_ key: String, _ value: String?) -> [String: String] {
        var data = V.iosPush
        data[key] = value
        return data
    }

    @Test func decodesTheIOSSpecPayload() throws {
        let push = try GuardianPush.decode(V.iosPush, receivedAt: Self.receivedAt)
        #expect(push.enrollmentId == "dev_VJGBI87d093cnl03")
        #expect(push.transactionToken == "random_tx_token")
        #expect(push.transactionLinkingId == "tx_VJGBI87d093cnl03")
        #expect(push.challenge == "random_challenge")
        #expect(push.hostname == "samples.auth0.com")
        #expect(push.startedAt == V.iosPushStartedAt)
        #expect(push.expiresAt == V.iosPushStartedAt.addingTimeInterval(GuardianPush.answerWindow))
        #expect(push.browser == .init(name: "Safari", version: "9.0.3"))
        #expect(push.os == .init(name: "Mac OS", version: "10.11.3"))
        #expect(push.location == .init(name: "Palermo, BA, Argentina", latitude: -34.57115, longitude: -58.423297))
        #expect(try GuardianPush.enrollmentId(V.iosPush) == "dev_VJGBI87d093cnl03")
    }

    @Test func decodesTheAndroidTestPayload() throws {
        let receivedAt = try #require(GuardianTime.date("2024-03-01T10:00:01Z"))
        let push = try GuardianPush.decode(V.androidPush, receivedAt: receivedAt)
        #expect(abs(push.startedAt.timeIntervalSince1970 - 1_709_287_200.123) < 0.0005)
        #expect(push.browser == .init(name: "BROWSER_NAME", version: "BROWSER_VERSION"))
        #expect(push.os == .init(name: "OS_NAME", version: "OS_VERSION"))
        #expect(push.location == .init(name: "LOCATION", latitude: 56.87, longitude: 34.34))
        #expect(push.hostname == "example.com" && push.enrollmentId == "DEVICE_ID")
    }

    @Test func claimsGuardianPushesOnly() {
        #expect(GuardianPush.claims(V.iosPush) && GuardianPush.claims(V.androidPush))
        #expect(GuardianPush.claims(["txtkn": "t", "dai": "d"]), "claimed even when broken, so the refusal says why")
        #expect(!GuardianPush.claims(["txtkn": "t"]) && !GuardianPush.claims(["dai": "d"]))
    }

    /// The other dialects' pushes, with every key they use: Guardian claims none, and none claims Guardian's.
    @Test func doesNotClaimOtherDialects() {
        let others: [[String: String]] = [
            ["messageId": "AUTHENTICATE:x", "message": "a.b.c"],
            ["context": "a.b.c"],
            ["nonce": "n", "serial": "PIPU1", "signature": "S", "title": "t", "question": "q", "url": "https://x",
             "sslverify": "1"],
            ["hyphen:type": "2fa-request", "hyphen:data": "{}"],
        ]
        for data in others { #expect(!GuardianPush.claims(data)) }
        #expect(PushRouter.claimants(V.iosPush) == [.guardian], "no other dialect claims a Guardian push")
        #expect(PushRouter.claimants(V.androidPush) == [.guardian])
    }

    @Test(arguments: [
        (push("txtkn", nil), "malformed: Guardian push: 'txtkn' (transaction token) is missing"),
        (push("dai", ""), "malformed: Guardian push: 'dai' (enrollment id) is missing"),
        (push("c", nil), "malformed: Guardian push: 'c' (challenge) is missing"),
        (push("sh", nil), "malformed: Guardian push: 'sh' (server host) is missing"),
        (push("d", nil), "malformed: Guardian push: 'd' (sign-in time) is missing"),
        (push("d", "this date cannot be parsed"), "malformed: Guardian push: 'd' (sign-in time) is not an ISO 8601 UTC time like 2015-12-17T19:53:31.000Z: 'this date cannot be parsed'"),
        (push("c", String(repeating: "c", count: 4097)), "malformed: Guardian push: 'c' (challenge) is longer than 4096 bytes"),
    ])
    func brokenPushesAreRefusedWithTheirReason(_ data: [String: String], _ message: String) {
        #expect(throws: PushRejection.self) { try GuardianPush.decode(data, receivedAt: Self.receivedAt) }
        expectError(message) { try GuardianPush.decode(data, receivedAt: Self.receivedAt) }
    }

    /// Android's rule: a context that does not read is left out, the push still shown.
    @Test func unreadableContextIsLeftOut() throws {
        var data = Self.push("s", "not json")
        data["l"] = #"{"lat":"north"}"#
        let push = try GuardianPush.decode(data, receivedAt: Self.receivedAt)
        #expect(push.browser == nil && push.os == nil && push.location == nil)
        let partial = try GuardianPush.decode(Self.push("s", #"{"os":{"n":"Linux"}}"#), receivedAt: Self.receivedAt)
        #expect(partial.browser == nil && partial.os == .init(name: "Linux", version: nil))
        let numbers = try GuardianPush.decode(Self.push("l", #"{"lat":1.5,"long":-2}"#), receivedAt: Self.receivedAt)
        #expect(numbers.location == .init(name: nil, latitude: 1.5, longitude: -2), "iOS also reads numbers")
    }

    @Test func expiresAfterItsWindow() {
        let late = V.iosPushStartedAt.addingTimeInterval(GuardianPush.answerWindow)
        expectError("expired: Guardian push expired at 2015-12-17T19:58:31Z") {
            try GuardianPush.decode(V.iosPush, receivedAt: late)
        }
    }

    @Test func aFutureStartDoesNotStretchTheWindow() throws {
        let push = try GuardianPush.decode(Self.push("d", "2016-01-01T00:00:00.000Z"), receivedAt: Self.receivedAt)
        #expect(push.expiresAt == Self.receivedAt.addingTimeInterval(GuardianPush.answerWindow))
    }

    /// A transaction token shaped as a JWT may only shorten the window.
    @Test func anEarlierTokenExpiryWins() throws {
        func jwt(exp: Double) -> String {
            "eyJhbGciOiJub25lIn0." + Data(#"{"exp":\#(exp)}"#.utf8).base64URLUnpadded + ".x"
        }
        let soon = Self.receivedAt.timeIntervalSince1970 + 60
        let early = try GuardianPush.decode(Self.push("txtkn", jwt(exp: soon)), receivedAt: Self.receivedAt)
        #expect(early.expiresAt.timeIntervalSince1970 == soon)
        let late = try GuardianPush.decode(Self.push("txtkn", jwt(exp: soon + 3600)), receivedAt: Self.receivedAt)
        #expect(late.expiresAt == V.iosPushStartedAt.addingTimeInterval(GuardianPush.answerWindow))
    }

    @Test func theReplayKeyHidesTheToken() throws {
        let push = try GuardianPush.decode(V.iosPush, receivedAt: Self.receivedAt)
        #expect(push.dedupeKey.hasPrefix("txtkn:") && push.dedupeKey.count == 70 && !push.dedupeKey.contains("random_tx_token"))
        #expect(try GuardianNotification(answerContext: push.answerContext()) == push)
    }
}

@Suite struct GuardianApprovalTests {
    @Test func aPromptThatSaysItIsUnsigned() throws {
        let push = try GuardianPush.decode(GuardianVectors.iosPush, receivedAt: GuardianPushTests.receivedAt)
        let draft = try push.approvalDraft(accountId: "acc_1", issuer: "samples", accountName: "p@p.xom")
        #expect(draft.provider == .guardian && draft.accountId == "acc_1" && draft.kind == .prompt && draft.numbers == nil)
        #expect(draft.title == "Sign-in to samples")
        #expect(draft.message.contains("p@p.xom") && draft.message.contains("not signed"))
        #expect(draft.context.userAgent == "Safari 9.0.3 on Mac OS 10.11.3")
        #expect(draft.context.location == "Palermo, BA, Argentina")
        #expect(draft.context.user == "p@p.xom" && draft.context.app == "samples")
        #expect(draft.context.raw?["server"] == .string("samples.auth0.com"))
        #expect(draft.context.raw?["transaction_linking_id"] == .string("tx_VJGBI87d093cnl03"))
        #expect(draft.requestedAt == push.startedAt && draft.expiresAt == push.expiresAt)
        #expect(draft.dedupeKey == push.dedupeKey)
        #expect(try GuardianNotification(answerContext: draft.answerContext).transactionToken == "random_tx_token")
    }

    @Test func coordinatesStandInForAPlaceName() throws {
        var data = GuardianVectors.iosPush
        data["l"] = #"{"lat":"1.5","long":"2.25"}"#
        data["s"] = nil
        let push = try GuardianPush.decode(data, receivedAt: GuardianPushTests.receivedAt)
        #expect(push.locationText == "1.5, 2.25")
        #expect(push.userAgentText == nil)
    }
}
