import Foundation
import GRDB
import PushAgentCore
@testable import PushAgentStore
import Testing

/// Web Push subscriptions and their messages in the store: sealed keys, one name per owner, a redelivered message
/// stored once, acknowledgements per subscription.
struct StoreWebPushTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-webpush-\(UUID())").path

    func withStore(_ body: (AgentStore) async throws -> Void) async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await body(try AgentStore(directory: directory))
    }

    func subscription(_ name: String, owner: UInt32, relayID: String, for receiver: WebPushReceiver = .script(.generate()))
        -> WebPushSubscription {
        WebPushSubscription(name: name, ownerUID: owner, relayID: relayID, endpoint: "https://relay.example/push/token-\(relayID)",
                            receiver: receiver, createdAt: Date())
    }

    func arrival(_ id: String, seq: Int64, to subscriptionID: String, body: String = "encrypted", expiresAt: Date? = nil)
        -> WebPushArrival {
        WebPushArrival(relayMessageID: id, seq: seq, subscriptionID: subscriptionID, body: Data(body.utf8), urgency: "normal",
                       topic: nil, expiresAt: expiresAt)
    }

    static let app = UnifiedPushApp(service: "org.example.Chat", token: "3b7c1a52-connection-token", description: "work account",
                                    vapid: nil, connectorVersion: 2)

    func keys(_ subscription: WebPushSubscription) throws -> WebPushKeys {
        guard case .script(let keys) = subscription.receiver else { throw StoreError.corrupt("not a script's subscription") }
        return keys
    }

    @Test func keysAndEndpointAreSealedAndOpenAgain() async throws {
        try await withStore { store in
            let made = subscription("demo", owner: 1000, relayID: "wps_1")
            try await store.addWebPushSubscription(made)
            let read = try await store.webPushSubscription(named: "demo", ownerUID: 1000)
            #expect(try keys(read).publicKey == keys(made).publicKey)
            #expect(try keys(read).authSecret == keys(made).authSecret)
            #expect(read.endpoint == made.endpoint)
            let raw = try await store.pool.read { db in try Data.fetchOne(db, sql: "SELECT sealed FROM webpush_subscriptions") }
            let sealed = try #require(raw)
            #expect(sealed.range(of: try keys(made).privateKey.rawRepresentation) == nil, "the private key is not in clear")
            #expect(sealed.range(of: Data(made.endpoint.utf8)) == nil, "nor the endpoint")
        }
    }

    @Test func aNameIsOneOwnersAndOthersDoNotSeeIt() async throws {
        try await withStore { store in
            try await store.addWebPushSubscription(subscription("demo", owner: 1000, relayID: "wps_1"))
            await #expect(throws: StoreError.self) {
                try await store.addWebPushSubscription(subscription("demo", owner: 1000, relayID: "wps_2"))
            }
            try await store.addWebPushSubscription(subscription("demo", owner: 1001, relayID: "wps_3"))
            #expect(try await store.webPushSubscriptions(ownerUID: 1000).map(\.subscription.relayID) == ["wps_1"])
            #expect(try await store.webPushSubscriptions(ownerUID: 1002).isEmpty)
            #expect(try await store.webPushSubscriptions(ownerUID: nil).count == 2, "root sees everyone's")
            await #expect(throws: StoreError.notFound("no Web Push subscription named 'demo' for uid 1002")) {
                try await store.webPushSubscription(named: "demo", ownerUID: 1002)
            }
            await #expect(throws: StoreError.self, "two owners' 'demo' is ambiguous without an owner") {
                try await store.webPushSubscription(named: "demo", ownerUID: nil)
            }
        }
    }

    @Test func aRedeliveredMessageIsStoredOnceAndTheCursorMoves() async throws {
        try await withStore { store in
            try await store.saveDeviceIdentity(DeviceIdentity(relayURL: "http://relay", deviceId: "d", token: "t", secret: "s",
                                                              registeredAt: Date()), markAccountsForTokenUpdate: false)
            try await store.addWebPushSubscription(subscription("demo", owner: 1000, relayID: "wps_1"))
            #expect(try await store.storeWebPushArrivals([arrival("m1", seq: 1, to: "wps_1"), arrival("m2", seq: 2, to: "gone")])
                    == [.stored, .unknownSubscription])
            #expect(try await store.storeWebPushArrivals([arrival("m1", seq: 1, to: "wps_1")]) == [.duplicate])
            #expect(try await store.cursor() == 2)
            let waiting = try await store.undeliveredWebPushMessages(subscriptionID: "wps_1")
            #expect(waiting.map(\.id) == ["m1"])
            #expect(waiting.first?.body == Data("encrypted".utf8))
        }
    }

    @Test func anAcknowledgedMessageIsNotHandedOutAgainAndCounts() async throws {
        try await withStore { store in
            try await store.addWebPushSubscription(subscription("demo", owner: 1000, relayID: "wps_1"))
            try await store.addWebPushSubscription(subscription("other", owner: 1001, relayID: "wps_2"))
            _ = try await store.storeWebPushArrivals([arrival("m1", seq: 1, to: "wps_1"), arrival("m2", seq: 2, to: "wps_1"),
                                                      arrival("m3", seq: 3, to: "wps_2")])
            #expect(try await store.acknowledgeWebPushMessages(["m1", "m3", "unknown"], subscriptionID: "wps_1") == 1,
                    "another subscription's message is not acknowledged through this one")
            #expect(try await store.acknowledgeWebPushMessages(["m1"], subscriptionID: "wps_1") == 0)
            #expect(try await store.undeliveredWebPushMessages(subscriptionID: "wps_1").map(\.id) == ["m2"])
            #expect(try await store.undeliveredWebPushMessages(subscriptionID: "wps_2").map(\.id) == ["m3"])
            let usage = try #require(try await store.webPushSubscriptions(ownerUID: 1000).first)
            #expect(usage.received == 2 && usage.undelivered == 1 && usage.lastDeliveryAt != nil)
        }
    }

    @Test func removingASubscriptionDropsItsMessages() async throws {
        try await withStore { store in
            try await store.addWebPushSubscription(subscription("demo", owner: 1000, relayID: "wps_1"))
            _ = try await store.storeWebPushArrivals([arrival("m1", seq: 1, to: "wps_1")])
            try await store.removeWebPushSubscription(relayID: "wps_1")
            #expect(try await store.webPushSubscriptions(ownerUID: nil).isEmpty)
            let left = try await store.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM webpush_messages") }
            #expect(left == 0)
        }
    }

    @Test func anAppsRegistrationIsSealedAndFoundByItsTokenOnlyForItsOwner() async throws {
        try await withStore { store in
            try await store.addWebPushSubscription(subscription("chat", owner: 1000, relayID: "wps_1", for: .app(Self.app)))
            let found = try #require(try await store.webPushSubscription(appToken: Self.app.token, ownerUID: 1000))
            #expect(found.receiver.app == Self.app && found.relayID == "wps_1")
            #expect(try await store.webPushSubscription(appToken: Self.app.token, ownerUID: 1001) == nil, "another user's token is not yours")
            #expect(try await store.webPushSubscription(appToken: "another-token", ownerUID: 1000) == nil)
            let sealed = try #require(try await store.pool.read { db in try Data.fetchOne(db, sql: "SELECT sealed FROM webpush_subscriptions") })
            #expect(sealed.range(of: Data(Self.app.token.utf8)) == nil, "the token is not in clear")
            await #expect(throws: (any Error).self, "one registration per token and owner") {
                try await store.addWebPushSubscription(subscription("chat-again", owner: 1000, relayID: "wps_2", for: .app(Self.app)))
            }
            var changed = found
            changed.receiver = .app(UnifiedPushApp(service: Self.app.service, token: Self.app.token, description: "home",
                                                   vapid: nil, connectorVersion: 1))
            try await store.updateWebPushReceiver(changed)
            #expect(try await store.webPushSubscription(named: "chat", ownerUID: 1000).receiver.app?.connectorVersion == 1)
        }
    }

    @Test func aMessagePastItsTTLIsNeverHandedOutNorCountedWaiting() async throws {
        try await withStore { store in
            try await store.addWebPushSubscription(subscription("demo", owner: 1000, relayID: "wps_1"))
            let now = Date()
            _ = try await store.storeWebPushArrivals([arrival("m1", seq: 1, to: "wps_1", expiresAt: now.addingTimeInterval(60)),
                                                      arrival("m2", seq: 2, to: "wps_1", expiresAt: now.addingTimeInterval(600)),
                                                      arrival("m3", seq: 3, to: "wps_1")], now: now)
            #expect(try await store.undeliveredWebPushMessages(subscriptionID: "wps_1", now: now).map(\.id) == ["m1", "m2", "m3"])
            let later = now.addingTimeInterval(120)
            #expect(try await store.undeliveredWebPushMessages(subscriptionID: "wps_1", now: later).map(\.id) == ["m2", "m3"])
            let usage = try #require(try await store.webPushSubscriptions(ownerUID: 1000, now: later).first)
            #expect(usage.received == 3 && usage.undelivered == 2)
        }
    }

    @Test func anAcknowledgedMessagesBodyIsNotKept() async throws {
        try await withStore { store in
            try await store.addWebPushSubscription(subscription("demo", owner: 1000, relayID: "wps_1"))
            _ = try await store.storeWebPushArrivals([arrival("m1", seq: 1, to: "wps_1", body: "ciphertext")])
            try await store.acknowledgeWebPushMessages(["m1"], subscriptionID: "wps_1")
            let body = try await store.pool.read { db in try Data.fetchOne(db, sql: "SELECT body FROM webpush_messages") }
            #expect(body == Data())
            #expect(try await store.storeWebPushArrivals([arrival("m1", seq: 1, to: "wps_1")]) == [.duplicate],
                    "its redelivery is still recognised")
        }
    }

    @Test func aSubscriptionMadeAgainKeepsItsNameAndItsWaitingMessages() async throws {
        try await withStore { store in
            let old = subscription("chat", owner: 1000, relayID: "wps_old", for: .app(Self.app))
            try await store.addWebPushSubscription(old)
            _ = try await store.storeWebPushArrivals([arrival("m1", seq: 1, to: "wps_old"), arrival("m2", seq: 2, to: "wps_old")])
            try await store.acknowledgeWebPushMessages(["m1"], subscriptionID: "wps_old")
            let new = subscription("chat", owner: 1000, relayID: "wps_new", for: .app(Self.app))
            try await store.replaceWebPushSubscription(old, with: new)
            #expect(try await store.webPushSubscription(named: "chat", ownerUID: 1000).relayID == "wps_new")
            #expect(try await store.webPushSubscription(appToken: Self.app.token, ownerUID: 1000)?.relayID == "wps_new")
            #expect(try await store.undeliveredWebPushMessages(subscriptionID: "wps_new").map(\.id) == ["m2"])
            #expect(try await store.webPushSubscriptions(ownerUID: nil).map(\.subscription.relayID) == ["wps_new"])
        }
    }
}
