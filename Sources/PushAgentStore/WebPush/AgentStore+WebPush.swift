import Foundation
import GRDB
import PushAgentCore

/// Web Push subscriptions (keys and endpoint sealed together) and the messages that came through them, kept until
/// their owner acknowledges them.
extension AgentStore {
    /// The most messages one read hands out: a listener takes the rest after acknowledging these.
    public static let webPushBatchLimit = 100

    /// Adds `subscription`; its owner may have one subscription of each name.
    public func addWebPushSubscription(_ subscription: WebPushSubscription) async throws {
        let secrets = try sealer.seal(try JSONEncoder().encode(SealedWebPushSecrets(subscription)),
                                      context: SealedColumn.webPushSubscription(subscription.relayID))
        try await pool.write { db in
            if try Self.webPushRows(named: subscription.name, ownerUID: subscription.ownerUID, db).isEmpty == false {
                throw StoreError.conflict("uid \(subscription.ownerUID) already has a Web Push subscription named '\(subscription.name)': remove it first (pushctl webpush remove \(subscription.name)) or choose another name")
            }
            try db.execute(sql: """
                INSERT INTO webpush_subscriptions (relay_subscription_id, name, owner_uid, sealed, created_at, app_token_digest)
                VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [subscription.relayID, subscription.name, subscription.ownerUID, secrets, subscription.createdAt,
                                 subscription.receiver.app?.tokenDigest])
        }
    }

    /// Puts `new` (a subscription made at the relay again, after the relay forgot this device) in the place of `old`:
    /// same name and owner, and the messages not yet taken move over, so its reader loses nothing.
    public func replaceWebPushSubscription(_ old: WebPushSubscription, with new: WebPushSubscription) async throws {
        let secrets = try sealer.seal(try JSONEncoder().encode(SealedWebPushSecrets(new)),
                                      context: SealedColumn.webPushSubscription(new.relayID))
        try await pool.write { db in
            // The old row keeps its messages until they have moved; its name steps aside for the new row meanwhile.
            try db.execute(sql: "UPDATE webpush_subscriptions SET name = name || '.replaced', app_token_digest = NULL WHERE relay_subscription_id = ?",
                           arguments: [old.relayID])
            try db.execute(sql: """
                INSERT INTO webpush_subscriptions (relay_subscription_id, name, owner_uid, sealed, created_at, app_token_digest)
                VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [new.relayID, new.name, new.ownerUID, secrets, new.createdAt, new.receiver.app?.tokenDigest])
            try db.execute(sql: "UPDATE webpush_messages SET subscription_id = ? WHERE subscription_id = ?", arguments: [new.relayID, old.relayID])
            try db.execute(sql: "DELETE FROM webpush_subscriptions WHERE relay_subscription_id = ?", arguments: [old.relayID])
        }
    }

    /// Seals `subscription`'s receiver anew (an app that registered again with another description or connector
    /// version), keeping its messages.
    public func updateWebPushReceiver(_ subscription: WebPushSubscription) async throws {
        let secrets = try sealer.seal(try JSONEncoder().encode(SealedWebPushSecrets(subscription)),
                                      context: SealedColumn.webPushSubscription(subscription.relayID))
        try await pool.write { db in
            try db.execute(sql: "UPDATE webpush_subscriptions SET sealed = ? WHERE relay_subscription_id = ?",
                           arguments: [secrets, subscription.relayID])
        }
    }

    /// The subscriptions of `ownerUID` (every owner's when nil; only `relayID` when given), by name, with their message counts (a message whose
    /// TTL ran out before it was taken is received, not waiting).
    public func webPushSubscriptions(ownerUID: UInt32?, relayID: String? = nil, now: Date = Date()) async throws
        -> [WebPushSubscriptionUsage] {
        try await pool.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT s.*, COUNT(m.relay_message_id) AS received,
                       COUNT(CASE WHEN m.delivered_at IS NULL AND (m.expires_at IS NULL OR m.expires_at > ?) THEN 1 END) AS undelivered,
                       MAX(m.delivered_at) AS last_delivery_at
                FROM webpush_subscriptions s LEFT JOIN webpush_messages m ON m.subscription_id = s.relay_subscription_id
                WHERE (? IS NULL OR s.owner_uid = ?) AND (? IS NULL OR s.relay_subscription_id = ?)
                GROUP BY s.relay_subscription_id ORDER BY s.name, s.owner_uid
                """, arguments: [now, ownerUID, ownerUID, relayID, relayID])
            return try rows.map { row in
                WebPushSubscriptionUsage(subscription: try opened(row), received: row["received"],
                                         undelivered: row["undelivered"], lastDeliveryAt: row["last_delivery_at"])
            }
        }
    }

    /// The subscription `name` of `ownerUID`; with no owner (root asking), of whichever owner has one by that name.
    public func webPushSubscription(named name: String, ownerUID: UInt32?) async throws -> WebPushSubscription {
        try await pool.read { db in
            let rows = try Self.webPushRows(named: name, ownerUID: ownerUID, db)
            guard let row = rows.first else {
                throw StoreError.notFound("no Web Push subscription named '\(name)'\(ownerUID.map { " for uid \($0)" } ?? "")")
            }
            guard rows.count == 1 else {
                let owners = rows.map { "\($0["owner_uid"] as Int64)" }.joined(separator: ", ")
                throw StoreError.ambiguous("several users (uids \(owners)) have a Web Push subscription named '\(name)': run the command as its owner")
            }
            return try opened(row)
        }
    }

    /// The UnifiedPush app registration of `ownerUID` made with connection token `token`, if there is one.
    public func webPushSubscription(appToken token: String, ownerUID: UInt32) async throws -> WebPushSubscription? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM webpush_subscriptions WHERE owner_uid = ? AND app_token_digest = ?",
                             arguments: [ownerUID, UnifiedPushApp.digest(ofToken: token)]).map { try opened($0) }
        }
    }

    /// Forgets the subscription and its undelivered messages.
    public func removeWebPushSubscription(relayID: String) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM webpush_subscriptions WHERE relay_subscription_id = ?", arguments: [relayID])
        }
    }

    /// Stores the arrivals and moves the relay cursor past them, in ONE transaction, so a message is acknowledged to the
    /// relay only once it is on disk, and one delivered again (a crash before the ack) is absorbed by its id.
    public func storeWebPushArrivals(_ arrivals: [WebPushArrival], now: Date = Date()) async throws
        -> [WebPushArrival.Outcome] {
        try await pool.write { db in
            try arrivals.map { arrival in
                try db.execute(sql: "UPDATE device SET cursor = MAX(cursor, ?)", arguments: [arrival.seq])
                guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM webpush_subscriptions WHERE relay_subscription_id = ?)",
                                        arguments: [arrival.subscriptionID]) == true else { return .unknownSubscription }
                try db.execute(sql: """
                    INSERT OR IGNORE INTO webpush_messages (relay_message_id, subscription_id, body, urgency, topic, received_at,
                                                            expires_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [arrival.relayMessageID, arrival.subscriptionID, arrival.body, arrival.urgency,
                                     arrival.topic, now, arrival.expiresAt])
                return db.changesCount == 1 ? .stored : .duplicate
            }
        }
    }

    /// The subscription's messages not yet acknowledged whose TTL has not run out, oldest first, at most
    /// `webPushBatchLimit`: a message is never handed out after its sender's TTL, however long its reader was away.
    public func undeliveredWebPushMessages(subscriptionID: String, now: Date = Date()) async throws -> [StoredWebPushMessage] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT relay_message_id, body, urgency, topic, received_at FROM webpush_messages
                WHERE subscription_id = ? AND delivered_at IS NULL AND (expires_at IS NULL OR expires_at > ?)
                ORDER BY received_at, rowid LIMIT ?
                """, arguments: [subscriptionID, now, Self.webPushBatchLimit]).map { row in
                StoredWebPushMessage(id: row["relay_message_id"], body: row["body"], urgency: row["urgency"],
                                     topic: row["topic"], receivedAt: row["received_at"])
            }
        }
    }

    /// Marks the subscription's messages `ids` delivered and drops their bodies, which nobody reads again; returns how
    /// many were undelivered until now (ids of other subscriptions, unknown or acknowledged before count for nothing).
    /// The row stays, for the counts and so that the relay's redelivery of it is still recognised.
    @discardableResult
    public func acknowledgeWebPushMessages(_ ids: [String], subscriptionID: String, now: Date = Date()) async throws -> Int {
        try await pool.write { db in
            try ids.reduce(0) { count, id in
                try db.execute(sql: """
                    UPDATE webpush_messages SET delivered_at = ?, body = zeroblob(0)
                    WHERE relay_message_id = ? AND subscription_id = ? AND delivered_at IS NULL
                    """, arguments: [now, id, subscriptionID])
                return count + db.changesCount
            }
        }
    }

    private static func webPushRows(named name: String, ownerUID: UInt32?, _ db: Database) throws -> [Row] {
        try Row.fetchAll(db, sql: "SELECT * FROM webpush_subscriptions WHERE name = ? AND (? IS NULL OR owner_uid = ?)",
                         arguments: [name, ownerUID, ownerUID])
    }

    private func opened(_ row: Row) throws -> WebPushSubscription {
        let relayID: String = row["relay_subscription_id"]
        let secrets = try JSONDecoder().decode(SealedWebPushSecrets.self, from: try sealer.open(
            row["sealed"], context: SealedColumn.webPushSubscription(relayID)))
        return WebPushSubscription(name: row["name"], ownerUID: row["owner_uid"], relayID: relayID,
                                   endpoint: secrets.endpoint, receiver: try secrets.receiver(), createdAt: row["created_at"])
    }
}

/// What is sealed of a subscription: its endpoint, which lets anyone push to it, and its script's keys or its app's
/// registration (whose token lets a caller on the session bus act for the app).
private struct SealedWebPushSecrets: Codable {
    var endpoint: String
    var privateKey: Data?
    var authSecret: Data?
    var app: UnifiedPushApp?

    init(_ subscription: WebPushSubscription) {
        endpoint = subscription.endpoint
        switch subscription.receiver {
        case .script(let keys):
            privateKey = keys.privateKey.rawRepresentation
            authSecret = keys.authSecret
        case .app(let app):
            self.app = app
        }
    }

    func receiver() throws -> WebPushReceiver {
        if let app { return .app(app) }
        guard let privateKey, let authSecret else { throw StoreError.corrupt("a Web Push subscription has neither keys nor an app") }
        return .script(try WebPushKeys(privateKeyBytes: privateKey, authSecret: authSecret))
    }
}
