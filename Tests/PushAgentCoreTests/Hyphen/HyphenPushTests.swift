import Foundation
import Testing
@testable import PushAgentCore

@Suite struct HyphenPushTests {
    static let receivedAt = Date(timeIntervalSince1970: 1_689_964_300)

    static func effect(_ data: [String: String], at date: Date = receivedAt) throws(PushRejection) -> PushEffect {
        let (handler, payload) = try HyphenPush.decode(data)
        return try handler.effect(of: payload, account: HyphenVectors.account, receivedAt: date)
    }

    @Test func routerSendsBothTypesToHyphen() {
        #expect(PushRouter.route(HyphenVectors.push("2fa-request", "{}")) == .hyphen)
        #expect(PushRouter.route(HyphenVectors.push("2fa-status-change", "{}")) == .hyphen)
        #expect(Set(HyphenPush.handlers.keys) == ["2fa-request", "2fa-status-change"])
    }

    @Test func documentedRequestBecomesAPromptShowingTheSignIn() throws {
        guard case .approval(let draft) = try Self.effect(HyphenVectors.push("2fa-request", HyphenVectors.documentedRequest))
        else { Issue.record("expected an approval"); return }
        #expect(draft.provider == .hyphen && draft.kind == .prompt && draft.numbers == nil)
        #expect(draft.accountId == "acc_hyphen")
        #expect(draft.dedupeKey == "faceb00c-cafe-babe-badd-deadbeef1234")
        #expect(draft.title == "Sign-in to Swirl")
        #expect(draft.message == "Allow iPhone 14 (iOS 16.2, Apple SM-265N) to sign in as john@acme.com?")
        #expect(draft.context.app == "Swirl" && draft.context.user == "john@acme.com")
        #expect(draft.context.ip == "127.0.0.1" && draft.context.location == "Seoul, Korea")
        #expect(draft.context.userAgent == "iPhone 14 (iOS 16.2, Apple SM-265N)")
        #expect(draft.expiresAt == Date(timeIntervalSince1970: 1_689_964_587.872))
        #expect(draft.requestedAt == Date(timeIntervalSince1970: 1_689_964_287.872))
        let raw = try JSONEncoder().encode(draft.context.raw)
        #expect(!String(decoding: raw, as: UTF8.self).contains("bk3RNwTe3H0"), "push tokens are not shown")
        let kept = try JSONDecoder().decode(HyphenApprovalContext.self, from: draft.answerContext)
        #expect(kept.twoFactorAuthId == "faceb00c-cafe-babe-badd-deadbeef1234" && kept.submittedTransactionId == nil)
        // The documentation's message is a placeholder, not a transaction: approving must say so.
        #expect(throws: HyphenApproval.Refusal.notATransaction) { try kept.cadence() }
    }

    @Test func androidPreviewDecodesWithItsOddTimestamps() throws {
        guard case .approval(let draft) = try Self.effect(HyphenVectors.push("2fa-request", HyphenVectors.androidPreview))
        else { Issue.record("expected an approval"); return }
        #expect(draft.expiresAt == Date(timeIntervalSince1970: 1_687_305_600))
        #expect(draft.title == "Sign-in to Hyphen SDK Sample")
        #expect(draft.context.location == "Seoul, KR" && draft.context.user == "test@hyphen.at")
        #expect(draft.message == "Allow iPhone 15 Pro Max (Android 17.1.0, Apple iPhone16,2) to sign in as test@hyphen.at?")
    }

    @Test func ownDeviceIsDestinationForRequestsAndSourceForStatusChanges() throws {
        let (request, payload) = try HyphenPush.decode(HyphenVectors.push("2fa-request", HyphenVectors.androidPreview))
        #expect(request.ownDevice(in: payload.twoFactorAuth).name == "Google Pixel 6a")
        let (change, _) = try HyphenPush.decode(HyphenVectors.push("2fa-status-change", HyphenVectors.androidPreview))
        #expect(change.ownDevice(in: payload.twoFactorAuth).name == "iPhone 15 Pro Max")
    }

    @Test func statusChangeUpdatesTheRequest() throws {
        let approved = HyphenVectors.documentedRequest.replacingOccurrences(
            of: #""status":"pending","#, with: #""status":"approved","result":{"txId":"abc123"},"#)
        let effect = try Self.effect(HyphenVectors.push("2fa-status-change", approved))
        #expect(effect == .requestUpdate(TwoFactorRequestUpdate(
            provider: .hyphen, accountId: "acc_hyphen", remoteId: "faceb00c-cafe-babe-badd-deadbeef1234",
            state: .approved, txId: "abc123")))
        let denied = HyphenVectors.documentedRequest.replacingOccurrences(of: #""status":"pending""#, with: #""status":"denied""#)
        guard case .requestUpdate(let update) = try Self.effect(HyphenVectors.push("2fa-status-change", denied)) else {
            Issue.record("expected a request update"); return
        }
        #expect(update.state == .denied && update.txId == nil)
    }

    @Test func badPushesSayWhatIsWrong() {
        let expired = HyphenVectors.documentedRequest.replacingOccurrences(of: "2023-07-21T18:36:27.872Z", with: "soon")
        let cases: [([String: String], String)] = [
            (["hyphen:type": "2fa-retry", "hyphen:data": "{}"],
             "malformed: Hyphen push of unknown type '2fa-retry' (known: 2fa-request, 2fa-status-change)"),
            (["hyphen:type": "2fa-request"], "malformed: Hyphen 2fa-request push: 'hyphen:data' is missing"),
            (HyphenVectors.push("2fa-request", "not json"),
             "malformed: Hyphen 2fa-request push: 'hyphen:data' is not a twoFactorAuth object (not JSON)"),
            (HyphenVectors.push("2fa-request", #"{"twoFactorAuth":{"id":"x"}}"#),
             "malformed: Hyphen 2fa-request push: 'hyphen:data' is not a twoFactorAuth object (missing 'twoFactorAuth.status')"),
            (HyphenVectors.push("2fa-request", HyphenVectors.documentedRequest.replacingOccurrences(of: #""pending""#, with: #""rejected""#)),
             "malformed: Hyphen 2fa-request push: 'hyphen:data' is not a twoFactorAuth object (bad 'twoFactorAuth.status')"),
            (HyphenVectors.push("2fa-request", expired),
             "malformed: Hyphen 2fa-request faceb00c-cafe-babe-badd-deadbeef1234: expiresAt 'soon' is not a time"),
            (HyphenVectors.push("2fa-status-change", HyphenVectors.documentedRequest),
             "malformed: Hyphen 2fa-status-change faceb00c-cafe-babe-badd-deadbeef1234 says it is still pending"),
        ]
        for (data, message) in cases {
            expectError(message) { try Self.effect(data) }
        }
    }
}
