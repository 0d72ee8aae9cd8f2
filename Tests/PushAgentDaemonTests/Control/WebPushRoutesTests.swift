import ControlClient
import ControlWire
import Foundation
@testable import PushAgentDaemon
import PushAgentCore
import PushAgentStore
import Testing

/// `/v1/webpush/subscriptions` and `/v1/webpush/apps` in process: refusals that say what to do, a listener woken by a
/// message that arrives while it waits, decrypted by the daemon for a script and left encrypted for an app, and a
/// message past its TTL never handed out.
struct WebPushRoutesTests {
    static let unreachableRelay = "http://127.0.0.1:9"

    static func withAgent(_ body: (InProcessAgent) async throws -> Void) async throws {
        try await InProcessAgent.with(configure: { $0.relayURL = unreachableRelay }, body)
    }

    static func refusal(_ call: () async throws -> some Any) async -> ControlError? {
        do { _ = try await call() } catch ControlClientError.api(_, let error) { return error } catch { return nil }
        return nil
    }

    @Test func subscribingSaysWhatIsWrongAndWhatToDo() async throws {
        try await Self.withAgent { agent in
            let badName = await Self.refusal { try await agent.client.webPushSubscribe(name: "no spaces") }
            #expect(badName?.code == .invalidArgument)
            let unregistered = await Self.refusal { try await agent.client.webPushSubscribe(name: "demo") }
            #expect(unregistered?.code == .unavailable && unregistered?.message.contains("not registered with the relay") == true)

            try await agent.store.saveDeviceIdentity(DeviceIdentity(relayURL: Self.unreachableRelay, deviceId: "d", token: "t",
                                                                    secret: "s", registeredAt: Date()),
                                                     markAccountsForTokenUpdate: false)
            let unreachable = await Self.refusal { try await agent.client.webPushSubscribe(name: "demo") }
            #expect(unreachable?.code == .unavailable && unreachable?.message.contains("is not reachable") == true,
                    "\(unreachable?.message ?? "")")

            try await agent.store.addWebPushSubscription(WebPushSubscription(
                name: "demo", ownerUID: getuid(), relayID: "wps_1", endpoint: "http://r/push/x", receiver: .script(.generate()), createdAt: Date()))
            let taken = await Self.refusal { try await agent.client.webPushSubscribe(name: "demo") }
            #expect(taken?.code == .conflict)
        }
    }

    @Test func aListenerWaitingIsWokenByAMessageAndGetsItDecrypted() async throws {
        try await Self.withAgent { agent in
            let keys = WebPushKeys.generate()
            try await agent.store.addWebPushSubscription(WebPushSubscription(
                name: "demo", ownerUID: getuid(), relayID: "wps_1", endpoint: "http://r/push/x", receiver: .script(keys), createdAt: Date()))
            let body = try WebPushSender(receiverPublicKey: keys.publicKey, authSecret: keys.authSecret)
                .encrypt(aes128gcm: Data("woken ✓".utf8))
            async let listened = agent.client.webPushMessages(name: "demo", wait: 10)
            try await Task.sleep(for: .milliseconds(300))
            try await agent.agent.ingest.ingest([DeliveredPush(
                data: ["webpush.subscription": "wps_1", "webpush.body": body.base64URLUnpadded, "webpush.urgency": "low"],
                source: .relay(id: "m1", seq: 1))])
            let messages = try await listened
            #expect(messages.map(\.text) == ["woken ✓"] && messages.first?.urgency == "low")
            #expect(try await agent.client.webPushAcknowledge(name: "demo", ids: ["m1"]).acknowledged == 1)
            #expect(try await agent.client.webPushMessages(name: "demo").isEmpty)
            let listed = try await agent.client.webPushSubscriptions().subscriptions
            #expect(listed.map(\.received) == [1] && listed.map(\.undelivered) == [0])
        }
    }

    static let app = UnifiedPushApp(service: "org.example.Chat", token: "a1b2c3d4-token", description: nil, vapid: nil,
                                    connectorVersion: 2)

    @Test func registeringAnAppSaysWhatIsWrong() async throws {
        try await Self.withAgent { agent in
            var malformed = Self.app
            malformed.service = "not a bus name"
            #expect(await Self.refusal { try await agent.client.unifiedPushRegister(malformed) }?.code == .invalidArgument)
            malformed = Self.app
            malformed.vapid = "short"
            #expect(await Self.refusal { try await agent.client.unifiedPushRegister(malformed) }?.code == .invalidArgument)
            let unregistered = await Self.refusal { try await agent.client.unifiedPushRegister(Self.app) }
            #expect(unregistered?.code == .unavailable && unregistered?.message.contains("not registered with the relay") == true)
            let unknown = await Self.refusal { try await agent.client.unifiedPushUnregister(token: "never-registered") }
            #expect(unknown?.code == .notFound)
        }
    }

    @Test func anAppsMessageIsHandedOutAsTheSenderPostedItAndNotPastItsTTL() async throws {
        try await Self.withAgent { agent in
            try await agent.store.addWebPushSubscription(WebPushSubscription(
                name: "chat", ownerUID: getuid(), relayID: "wps_1", endpoint: "http://r/push/x", receiver: .app(Self.app),
                createdAt: Date()))
            let body = Data((0...255).map(UInt8.init))
            try await agent.agent.ingest.ingest([
                DeliveredPush(data: ["webpush.subscription": "wps_1", "webpush.body": body.base64URLUnpadded],
                              source: .relay(id: "m1", seq: 1), expiresAt: Date().addingTimeInterval(-1)),
                DeliveredPush(data: ["webpush.subscription": "wps_1", "webpush.body": body.base64URLUnpadded],
                              source: .relay(id: "m2", seq: 2), expiresAt: Date().addingTimeInterval(600)),
            ])
            let messages = try await agent.client.webPushMessages(name: "chat")
            #expect(messages.map(\.id) == ["m2"], "m1's TTL ran out before anyone took it")
            #expect(messages.first?.encrypted == body.base64EncodedString() && messages.first?.text == nil)
            let listed = try await agent.client.webPushSubscriptions().subscriptions
            #expect(listed.first?.app == Self.app && listed.first?.received == 2 && listed.first?.undelivered == 1)
        }
    }
}
