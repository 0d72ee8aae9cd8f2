import Foundation
@testable import PushAgentDaemon
import PushAgentCore
import PushAgentStore
import Testing

/// The relay's Web Push messages share the ingest path with provider pushes but never their handlers: in one batch
/// each goes its own way, in order, and the cursor passes them all.
struct WebPushIngestTests {
    let pushes = PrivacyIDEAIngestTests()

    static func webPush(id: String, seq: Int64, to subscription: String) -> DeliveredPush {
        DeliveredPush(data: ["webpush.subscription": subscription, "webpush.body": "AQID", "webpush.urgency": "high"],
                      source: .relay(id: id, seq: seq))
    }

    @Test func aBatchSendsWebPushToTheInboxAndProviderPushesToProviders() async throws {
        let (ingest, store) = try await pushes.makeIngest()
        try await store.addWebPushSubscription(WebPushSubscription(name: "demo", ownerUID: 1000, relayID: "wps_1",
                                                                   endpoint: "http://r/push/x", receiver: .script(.generate()), createdAt: Date()))
        let outcomes = try await ingest.ingest([
            DeliveredPush(data: try pushes.challenge(nonce: "NONCEBEFORE00000"), source: .relay(id: "m1", seq: 1)),
            Self.webPush(id: "m2", seq: 2, to: "wps_1"),
            Self.webPush(id: "m3", seq: 3, to: "wps_removed"),
            DeliveredPush(data: try pushes.challenge(nonce: "NONCEAFTER000000"), source: .relay(id: "m4", seq: 4)),
            DeliveredPush(data: ["webpush.subscription": "wps_1", "webpush.body": "not base64!"], source: .relay(id: "m5", seq: 5)),
        ])
        #expect(outcomes.count == 2, "only the provider pushes have outcomes: \(outcomes)")
        #expect(try await store.approvals(state: .pending).count == 2)
        #expect(try await store.auditEntries(event: "push_rejected").isEmpty, "no Web Push message reached a provider")
        let stored = try await store.undeliveredWebPushMessages(subscriptionID: "wps_1")
        #expect(stored.map(\.id) == ["m2"] && stored.first?.body == Data([1, 2, 3]) && stored.first?.urgency == "high")
        #expect(try await store.cursor() == 5, "past the malformed one too, which is dropped")

        try await ingest.ingest([Self.webPush(id: "m2", seq: 2, to: "wps_1")])
        #expect(try await store.undeliveredWebPushMessages(subscriptionID: "wps_1").count == 1, "a redelivery is absorbed")
    }

    /// Only the relay's Web Push service writes `webpush.` keys (its send API refuses them): the same keys from
    /// another source are a provider push, which no dialect claims.
    @Test func webPushKeysFromAnotherSourceNeverReachTheInbox() async throws {
        let (ingest, store) = try await pushes.makeIngest()
        var push = Self.webPush(id: "x", seq: 0, to: "wps_1")
        push.source = .fcm(persistentID: "0:fcm")
        let outcomes = try await ingest.ingest([push])
        guard case .rejected(let rejection)? = outcomes.first else { Issue.record("expected a rejection, got \(outcomes)"); return }
        #expect(rejection.reason == .unknownDialect)
        #expect(try await store.undeliveredWebPushMessages(subscriptionID: "wps_1").isEmpty)
    }
}
