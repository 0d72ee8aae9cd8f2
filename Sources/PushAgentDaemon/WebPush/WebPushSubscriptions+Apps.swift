import ControlWire
import Foundation
import PushAgentCore
import PushAgentStore

/// UnifiedPush apps' subscriptions, which the distributor (`pushctl webpush distributor`, on the user's session bus)
/// makes and removes for the apps of its user's session, as their connectors ask.
extension WebPushSubscriptions {
    /// The app's subscription, made at the relay on its first registration. The same token again is the same
    /// registration (the UnifiedPush specification has an app register again at every start): its endpoint stays,
    /// unless the app now gives another VAPID key, which the relay's subscription is bound to, or the relay has
    /// forgotten it (this device registered anew); then it is made again, the messages not yet taken kept.
    func register(_ app: UnifiedPushApp, peer: Peer) async throws -> (WebPushSubscriptionsResponse.Subscription, created: Bool) {
        if let problem = app.problem { throw ServiceError(.invalidArgument, problem) }
        if let existing = try await store.webPushSubscription(appToken: app.token, ownerUID: peer.uid),
           let known = existing.receiver.app {
            guard known.service == app.service else {
                throw ServiceError(.conflict, "the connection token is already registered by \(known.service), not \(app.service): a connector chooses a new random token for each registration")
            }
            if isStale(existing, device: try await store.deviceIdentity()) {
                let renewed = try await create(name: existing.name, for: .app(app), peer: peer, replacing: existing)
                logger.notice("UnifiedPush app \(app.service)'s subscription made again: the relay had forgotten this device")
                return (try await listing(of: renewed), true)
            }
            if known.vapid == app.vapid {
                if known != app {
                    var updated = existing
                    updated.receiver = .app(app)
                    try await store.updateWebPushReceiver(updated)
                }
                return (try await listing(of: existing), false)
            }
            _ = try await remove(existing, peer: peer)
        }
        let subscription = try await create(name: Self.name(for: app), for: .app(app), peer: peer)
        return (try await listing(of: subscription), true)
    }

    /// Removes the registration the app's connector names by its token (at the relay first: 410 to its senders).
    func unregister(token: String, peer: Peer) async throws -> WebPushSubscriptionsResponse.Subscription {
        guard let subscription = try await store.webPushSubscription(appToken: token, ownerUID: peer.uid) else {
            throw ServiceError(.notFound, "no UnifiedPush app of uid \(peer.uid) is registered with that connection token")
        }
        return try await remove(subscription, peer: peer)
    }

    /// The app's service name and a digest of its token: readable in `pushctl webpush list`, unique per
    /// registration, and within the 64 characters a subscription name may have.
    static func name(for app: UnifiedPushApp) -> String {
        let digest = app.tokenDigest.prefix(4).map { String(format: "%02x", $0) }.joined()
        return String(app.service.prefix(55)) + "." + digest
    }
}
