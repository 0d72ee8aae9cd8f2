import Foundation
import GRDB

/// Web Push subscriptions (`WebPushSubscription`). No foreign key to the device: a removed subscription, and every
/// subscription of a deleted device, stays as a tombstone so its senders get 410 rather than 404.
extension SQLiteRelayStore {
    static func createWebPushSubscriptionTable(_ db: Database) throws {
        try db.create(table: "webpush_subscriptions") { t in
            t.primaryKey("id", .text)
            t.column("device_id", .text).notNull()
            t.column("token_digest", .blob).notNull().unique()
            t.column("application_server_key", .blob)
            t.column("created_at", .integer).notNull()
            t.column("removed_at", .integer)
        }
        try db.create(index: "webpush_subscriptions_by_device", on: "webpush_subscriptions", columns: ["device_id"])
    }

    func createWebPushSubscription(_ subscription: WebPushSubscription, tokenDigest: [UInt8]) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO webpush_subscriptions (id, device_id, token_digest, application_server_key, created_at)
                    VALUES (?, ?, ?, ?, ?)
                    """,
                arguments: [subscription.id, subscription.deviceID, Data(tokenDigest), subscription.applicationServerKey,
                            subscription.createdAt])
        }
    }

    func webPushSubscription(tokenDigest: [UInt8]) async throws -> WebPushSubscriptionLookup {
        try await pool.read { db in
            let row = try Row.fetchOne(db, sql: WebPushSubscriptionSQL.lookup, arguments: [Data(tokenDigest)])
            guard let row else { return .unknown }
            return row["live"] ? .active(WebPushSubscriptionSQL.subscription(row)) : .removed
        }
    }

    func webPushSubscriptions(deviceID: String) async throws -> [WebPushSubscription] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: WebPushSubscriptionSQL.listing, arguments: [deviceID]).map(WebPushSubscriptionSQL.subscription)
        }
    }

    func removeWebPushSubscription(id: String, deviceID: String, now: Int64) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: WebPushSubscriptionSQL.removal, arguments: [now, id, deviceID])
            return db.changesCount > 0
        }
    }
}

private enum WebPushSubscriptionSQL {
    /// `live`: neither removed nor left behind by a deleted device.
    static let lookup = """
        SELECT s.id, s.device_id, s.application_server_key, s.created_at,
               s.removed_at IS NULL AND EXISTS (SELECT 1 FROM device d WHERE d.id = s.device_id) AS live
        FROM webpush_subscriptions s WHERE s.token_digest = ?
        """
    static let listing = """
        SELECT id, device_id, application_server_key, created_at FROM webpush_subscriptions
        WHERE device_id = ? AND removed_at IS NULL ORDER BY created_at, id
        """
    static let removal = "UPDATE webpush_subscriptions SET removed_at = ? WHERE id = ? AND device_id = ? AND removed_at IS NULL"

    static func subscription(_ row: Row) -> WebPushSubscription {
        WebPushSubscription(id: row["id"], deviceID: row["device_id"], applicationServerKey: row["application_server_key"],
                            createdAt: row["created_at"])
    }
}
