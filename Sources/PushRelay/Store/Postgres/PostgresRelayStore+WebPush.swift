import Foundation
import PostgresNIO

/// Web Push subscriptions, shared by every instance: an endpoint one instance issued is served by all.
extension PostgresRelayStore {
    func createWebPushSubscription(_ subscription: WebPushSubscription, tokenDigest: [UInt8]) async throws {
        try await rows("creating a Web Push subscription", """
            INSERT INTO webpush_subscriptions (id, device_id, token_digest, application_server_key, created_at)
            VALUES (\(subscription.id), \(subscription.deviceID), \(Data(tokenDigest)), \(subscription.applicationServerKey),
                    \(subscription.createdAt))
            """)
    }

    /// `live`: neither removed nor left behind by a deleted device.
    func webPushSubscription(tokenDigest: [UInt8]) async throws -> WebPushSubscriptionLookup {
        let row = try await rows("looking up a Web Push subscription", """
            SELECT s.id, s.device_id, s.application_server_key, s.created_at,
                   s.removed_at IS NULL AND EXISTS (SELECT 1 FROM device d WHERE d.id = s.device_id)
            FROM webpush_subscriptions s WHERE s.token_digest = \(Data(tokenDigest))
            """).first
        guard let row else { return .unknown }
        let (id, deviceID, key, createdAt, live) = try row.decode((String, String, Data?, Int64, Bool).self)
        return live ? .active(WebPushSubscription(id: id, deviceID: deviceID, applicationServerKey: key, createdAt: createdAt)) : .removed
    }

    func webPushSubscriptions(deviceID: String) async throws -> [WebPushSubscription] {
        try await rows("listing Web Push subscriptions of device \(deviceID)", """
            SELECT id, application_server_key, created_at FROM webpush_subscriptions
            WHERE device_id = \(deviceID) AND removed_at IS NULL ORDER BY created_at, id
            """).map { row in
            let (id, key, createdAt) = try row.decode((String, Data?, Int64).self)
            return WebPushSubscription(id: id, deviceID: deviceID, applicationServerKey: key, createdAt: createdAt)
        }
    }

    func removeWebPushSubscription(id: String, deviceID: String, now: Int64) async throws -> Bool {
        try await rows("removing a Web Push subscription of device \(deviceID)", """
            UPDATE webpush_subscriptions SET removed_at = \(now)
            WHERE id = \(id) AND device_id = \(deviceID) AND removed_at IS NULL RETURNING 1
            """).count > 0
    }
}
