import ControlClient
import ControlWire
import Foundation
@testable import PushAgentDaemon
import PushAgentCore
import PushAgentStore
import Testing

/// `/v1/webpush/subscriptions` in process: refusals that say what to do, and a listener woken by a message that
/// arrives while it waits, decrypted by the daemon.
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
                name: "demo", ownerUID: getuid(), relayID: "wps_1", endpoint: "http://r/push/x", keys: .generate(), createdAt: Date()))
            let taken = await Self.refusal { try await agent.client.webPushSubscribe(name: "demo") }
            #expect(taken?.code == .conflict)
        }
    }

    @Test func aListenerWaitingIsWokenByAMessageAndGetsItDecrypted() async throws {
        try await Self.withAgent { agent in
            let keys = WebPushKeys.generate()
            try await agent.store.addWebPushSubscription(WebPushSubscription(
                name: "demo", ownerUID: getuid(), relayID: "wps_1", endpoint: "http://r/push/x", keys: keys, createdAt: Date()))
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
}
