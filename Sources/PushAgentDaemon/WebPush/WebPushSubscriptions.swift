import ControlWire
import Foundation
import Logging
import PushAgentCore
import PushAgentStore
import ServiceLifecycle

/// Web Push subscriptions for local users: made and removed at the relay with the poll's device credentials. A
/// script's (`pushctl webpush subscribe`) messages are decrypted here, so its keys never leave the daemon; a UnifiedPush
/// app's (the distributor's, WebPushSubscriptions+Apps) are handed out as the sender posted them, for the app to
/// decrypt. A user sees and uses only the subscriptions it made; root, everyone's.
struct WebPushSubscriptions: Sendable {
    let store: AgentStore
    let relay: RelayDeviceClient
    let inbox: WebPushInbox
    let logger: Logger

    func subscribe(name: String, peer: Peer) async throws -> WebPushSubscriptionCreated {
        if let problem = WebPushSubscribeRequest.problem(withName: name) { throw ServiceError(.invalidArgument, problem) }
        if (try? await store.webPushSubscription(named: name, ownerUID: peer.uid)) != nil {
            throw ServiceError(.conflict, "you already have a Web Push subscription named '\(name)': remove it first (pushctl webpush remove \(name)) or choose another name")
        }
        let keys = WebPushKeys.generate()
        let subscription = try await create(name: name, for: .script(keys), peer: peer)
        return WebPushSubscriptionCreated(name: name, endpoint: subscription.endpoint, p256dh: keys.publicKey.base64URLUnpadded,
                                          auth: keys.authSecret.base64URLUnpadded)
    }

    /// A new subscription at the relay, kept here for `receiver` (in the place of `replacing`, one the relay forgot);
    /// its VAPID key, if the receiver is an app that gave one.
    func create(name: String, for receiver: WebPushReceiver, peer: Peer, replacing stale: WebPushSubscription? = nil) async throws
        -> WebPushSubscription {
        let device = try await registeredDevice()
        let created = try await relayCall("create a Web Push subscription") {
            try await relay.createWebPushSubscription(deviceId: device.deviceId, secret: device.secret,
                                                      applicationServerKey: receiver.app?.vapid)
        }
        let subscription = WebPushSubscription(name: name, ownerUID: stale?.ownerUID ?? peer.uid, relayID: created.id,
                                               endpoint: created.endpoint, receiver: receiver, createdAt: Date())
        do {
            if let stale {
                try await store.replaceWebPushSubscription(stale, with: subscription)
            } else {
                try await store.addWebPushSubscription(subscription)
            }
        } catch {
            // Not kept here, so nobody could read its messages: it must not take any at the relay either.
            try? await relay.removeWebPushSubscription(id: created.id, deviceId: device.deviceId, secret: device.secret)
            throw error
        }
        logger.notice("Web Push subscription '\(name)' created for uid \(peer.uid)",
                      metadata: ["webpush_subscription": "\(created.id)", "peer_uid": "\(peer.uid)"])
        return subscription
    }

    func list(peer: Peer) async throws -> WebPushSubscriptionsResponse {
        let device = try await store.deviceIdentity()
        return WebPushSubscriptionsResponse(subscriptions: try await store.webPushSubscriptions(ownerUID: Self.scope(of: peer))
            .map { Self.listed($0, stale: isStale($0.subscription, device: device)) })
    }

    /// Whether the relay has forgotten the subscription: it was made for a device registration that has since been
    /// replaced (the relay lost the device, or relay_url changed), so its endpoint answers 404 or 410 to senders.
    func isStale(_ subscription: WebPushSubscription, device: DeviceIdentity?) -> Bool {
        guard let device, device.relayURL == relay.baseURL else { return true }
        return subscription.createdAt < device.registeredAt
    }

    /// Removed at the relay first, so its senders get 410; a relay that cannot be reached leaves it in place, to try again.
    func remove(name: String, peer: Peer) async throws -> WebPushSubscriptionsResponse.Subscription {
        try await remove(try await store.webPushSubscription(named: name, ownerUID: Self.scope(of: peer)), peer: peer)
    }

    func remove(_ subscription: WebPushSubscription, peer: Peer) async throws -> WebPushSubscriptionsResponse.Subscription {
        let name = subscription.name
        let listed = try await listing(of: subscription)
        let device = try await registeredDevice()
        try await relayCall("remove the Web Push subscription '\(name)'") {
            try await relay.removeWebPushSubscription(id: subscription.relayID, deviceId: device.deviceId, secret: device.secret)
        }
        try await store.removeWebPushSubscription(relayID: subscription.relayID)
        logger.notice("Web Push subscription '\(name)' of uid \(subscription.ownerUID) removed by uid \(peer.uid)",
                      metadata: ["webpush_subscription": "\(subscription.relayID)", "peer_uid": "\(peer.uid)"])
        return listed
    }

    /// The messages not yet acknowledged, decrypted, oldest first; when there are none, the first to come within `wait`.
    func messages(name: String, peer: Peer, wait: Duration) async throws -> WebPushMessagesResponse {
        let subscription = try await store.webPushSubscription(named: name, ownerUID: Self.scope(of: peer))
        // Subscribed before reading, so a message stored between the read and the wait is not missed.
        let stored = await inbox.arrivals.subscribe()
        var messages = try await store.undeliveredWebPushMessages(subscriptionID: subscription.relayID)
        if messages.isEmpty, wait > .zero {
            await firstArrival(for: subscription.relayID, in: stored, within: wait)
            messages = try await store.undeliveredWebPushMessages(subscriptionID: subscription.relayID)
        }
        return WebPushMessagesResponse(messages: messages.map { message in
            switch subscription.receiver {
            case .script(let keys): decrypted(message, subscription, keys)
            case .app: .init(id: message.id, receivedAt: message.receivedAt, urgency: message.urgency, topic: message.topic,
                             encrypted: message.body)
            }
        })
    }

    func acknowledge(ids: [String], name: String, peer: Peer) async throws -> WebPushAckResponse {
        let subscription = try await store.webPushSubscription(named: name, ownerUID: Self.scope(of: peer))
        return WebPushAckResponse(acknowledged: try await store.acknowledgeWebPushMessages(ids, subscriptionID: subscription.relayID))
    }

    private func decrypted(_ message: StoredWebPushMessage, _ subscription: WebPushSubscription, _ keys: WebPushKeys)
        -> WebPushMessagesResponse.Message {
        let plaintext = Result { () throws(WebPushError) in try keys.decrypt(aes128gcm: message.body) }
        if case .failure(let error) = plaintext {
            logger.warning("Web Push message for '\(subscription.name)' does not decrypt with its keys: \(error)",
                           metadata: ["relay_message_id": "\(message.id)", "webpush_subscription": "\(subscription.relayID)"])
        }
        return .init(id: message.id, receivedAt: message.receivedAt, urgency: message.urgency, topic: message.topic,
                     plaintext: plaintext)
    }

    private func firstArrival(for relayID: String, in stored: AsyncStream<String>, within wait: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { for await id in stored where id == relayID { return } }
            group.addTask { try? await Task.sleep(for: wait) }
            // A listener waiting (the distributor always is) must not hold pushagentd's stop for the rest of its wait.
            group.addTask { try? await gracefulShutdown() }
            await group.next()
            group.cancelAll()
        }
    }

    /// Whose subscriptions the peer may see and use: its own, or (root) everyone's.
    private static func scope(of peer: Peer) -> UInt32? { peer.uid == 0 ? nil : peer.uid }

    /// The subscription as the list shows it, read now.
    func listing(of subscription: WebPushSubscription) async throws -> WebPushSubscriptionsResponse.Subscription {
        guard let usage = try await store.webPushSubscriptions(ownerUID: subscription.ownerUID, relayID: subscription.relayID).first else {
            throw ServiceError(.notFound, "the Web Push subscription '\(subscription.name)' is gone")
        }
        return Self.listed(usage, stale: false)
    }

    static func listed(_ usage: WebPushSubscriptionUsage, stale: Bool) -> WebPushSubscriptionsResponse.Subscription {
        .init(name: usage.subscription.name, ownerUid: usage.subscription.ownerUID, endpoint: usage.subscription.endpoint,
              createdAt: usage.subscription.createdAt, received: usage.received, undelivered: usage.undelivered,
              lastDeliveryAt: usage.lastDeliveryAt, app: usage.subscription.receiver.app, stale: stale)
    }

    private func registeredDevice() async throws -> DeviceIdentity {
        guard let device = try await store.deviceIdentity(), device.relayURL == relay.baseURL else {
            throw ServiceError(.unavailable, "pushagentd is not registered with the relay yet (`pushctl status` shows the relay's state): check relay_url in pushagentd.toml and that the relay is up, then try again")
        }
        return device
    }

    /// `call` to the relay, its failure said in the caller's terms: what could not be done, why, and what to do.
    private func relayCall<T>(_ what: String, _ call: () async throws -> T) async throws -> T {
        do {
            return try await call()
        } catch let error as RelayError {
            switch error {
            case .transport, .unknownDevice:
                throw ServiceError(.unavailable, "could not \(what): the relay at \(relay.baseURL) is not reachable (\(error)). Check that it is up and `pushctl status` shows it connected, then try again")
            case .cursorAhead, .unauthorized, .http, .badResponse:
                throw ServiceError(.upstream, "could not \(what): \(error)")
            }
        }
    }
}
