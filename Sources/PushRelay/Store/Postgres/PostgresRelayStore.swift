import Foundation
import Logging
import PostgresNIO
import RelayWire

/// The relay's state in PostgreSQL, shared by every relay instance on the database. The semantics are
/// `RelayStore`'s; each operation is one transaction (PostgreSQL's WAL flush groups concurrent commits by itself).
///
/// A send takes its device's row lock first (`last_seq = last_seq + 1`) and holds it until it commits, so a device's
/// sequence numbers grow in commit order, and a poll that sees seq n sees every message below it. Once committed, a
/// send announces itself with `NOTIFY pushrelay_wake, '<device id>'`, delivered to every instance's
/// `PostgresWakeListener`; the message itself stays in the table.
final class PostgresRelayStore: RelayStorage {
    static let wakeChannel = "pushrelay_wake"

    let settings: PostgresSettings
    /// Undelivered messages one device may have, counted across instances.
    let maximumQueuedPerDevice: Int
    let logger: Logger
    private let client: PostgresClient
    /// The pool runs from `open` until `close`.
    private let pool: Task<Void, Never>
    private let devices = DeviceCache()
    private let announcer: WakeAnnouncer

    /// Connects (a failure says where to and what to check), migrates the schema, and starts the connection pool.
    static func open(_ settings: PostgresSettings, maximumQueuedPerDevice: Int, logger: Logger) async throws -> PostgresRelayStore {
        var logger = logger
        // postgres-nio logs queries with their parameters at debug level: secrets' digests among them.
        logger.logLevel = max(logger.logLevel, .notice)
        let connection = try await settings.connect(logger: logger)
        do {
            try await PostgresSchema.migrate(connection, logger: logger)
        } catch {
            try? await connection.close()
            throw PostgresFailure(settings: settings, doing: "migrating the schema", error: error)
        }
        try? await connection.close()
        return PostgresRelayStore(settings: settings, maximumQueuedPerDevice: maximumQueuedPerDevice, logger: logger)
    }

    private init(settings: PostgresSettings, maximumQueuedPerDevice: Int, logger: Logger) {
        self.settings = settings
        self.maximumQueuedPerDevice = maximumQueuedPerDevice
        self.logger = logger
        let client = PostgresClient(configuration: settings.clientConfiguration(), backgroundLogger: logger)
        self.client = client
        announcer = WakeAnnouncer { deviceIDs in
            await Self.notify(deviceIDs, client: client, settings: settings, logger: logger)
        }
        // Immediate: the pool counts as running before the first lease (postgres-nio warns of a lease before `run`).
        pool = Task.immediate { await client.run() }
    }

    /// Closes the pool's connections; later operations fail.
    func close() {
        pool.cancel()
    }

    func transaction<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        do {
            return try await client.withTransaction(logger: logger) { connection in try await body(connection) }
        } catch {
            throw PostgresSchema.unwrapped(error)
        }
    }

    /// A statement outside a transaction, its rows read.
    @discardableResult
    func rows(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await client.query(query, logger: logger).collect()
    }

    func registerDevice(name: String, platform: String) async throws -> DeviceRegistration {
        let registration = DeviceRegistration(
            deviceID: Identifiers.deviceID(), token: Identifiers.pushToken(), secret: Identifiers.deviceSecret())
        try await rows("""
            INSERT INTO device (id, token, secret_hash, name, platform, created_at)
            VALUES (\(registration.deviceID), \(registration.token), \(Data(secretDigest(registration.secret))), \(name),
                    \(platform), \(nowMilliseconds()))
            """)
        return registration
    }

    func device(id: String) async throws -> StoredDevice? {
        if let cached = devices.device(id: id) { return cached }
        let digest = try await rows("SELECT secret_hash FROM device WHERE id = \(id)").first?.decode(Data.self)
        guard let digest else { return nil }
        let device = StoredDevice(id: id, secretDigest: [UInt8](digest))
        devices.remember(device)
        return device
    }

    func deviceID(forToken token: String) async throws -> String? {
        if let cached = devices.deviceID(token: token) { return cached }
        let id = try await rows("SELECT id FROM device WHERE token = \(token)").first?.decode(String.self)
        if let id { devices.remember(token: token, deviceID: id) }
        return id
    }

    /// The foreign key's cascade drops the device's messages; the wake-up ends a poll of it waiting on any instance
    /// (it reads again and finds the device gone).
    func deleteDevice(id: String) async throws -> Bool {
        devices.forget(deviceID: id)
        let deleted = try await rows("DELETE FROM device WHERE id = \(id) RETURNING 1").count > 0
        if deleted { wake(deviceID: id) }
        return deleted
    }

    func deviceCount() async throws -> Int {
        try await rows("SELECT count(*) FROM device").first?.decode(Int.self) ?? 0
    }

    /// One statement, committed on its own (`pushrelay_enqueue` in PostgresSchema). It takes the device's row lock
    /// first and holds it until it commits, so the next send to the device waits and seqs commit in order.
    func enqueue(_ outgoing: OutgoingMessage, deviceID: String, now: Int64) async throws -> EnqueueResult? {
        let (data, notification) = outgoing.encodedPayload()
        let messageID = Identifiers.messageID(), expiresAt = now + outgoing.ttlMilliseconds
        let row: PostgresRow?
        do {
            row = try await rows("""
                SELECT seq, collapsed FROM pushrelay_enqueue(\(deviceID), \(messageID), \(data), \(notification),
                    \(outgoing.priority.rawValue), \(outgoing.collapseKey), \(now), \(expiresAt), \(maximumQueuedPerDevice))
                """).first
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == PostgresSchema.queueFullState {
            throw DeviceQueueFull(limit: maximumQueuedPerDevice)
        }
        guard let (seq, collapsed) = try row?.decode((Int64, Int).self) else {
            devices.forget(deviceID: deviceID)
            return nil
        }
        wake(deviceID: deviceID)
        let message = RelayMessage(
            seq: seq, id: messageID, data: outgoing.data, notification: outgoing.notification, priority: outgoing.priority,
            sentAt: now, expiresAt: expiresAt)
        return EnqueueResult(message: message, collapsed: collapsed)
    }

    /// Every writer locks the device's row before its messages (a send by its `last_seq` update, an acknowledging
    /// poll here), so two of them never wait for each other crosswise. A poll with nothing to acknowledge takes no
    /// lock: the device's sends commit in seq order under theirs, so the rows it reads are a prefix of the queue, and
    /// `delivered_seq` only grows (`GREATEST`: two polls of one device may run on two instances). Such a poll
    /// usually writes nothing, so its commit waits for no disk.
    func poll(deviceID: String, after: Int64, limit: Int, now: Int64) async throws -> PollResult? {
        let result = try await transaction { connection -> PollResult? in
            guard let device = try await connection.query("""
                SELECT delivered_seq, EXISTS (SELECT 1 FROM message WHERE device_id = \(deviceID) AND seq <= \(after))
                FROM device WHERE id = \(deviceID)
                """, logger: logger).collect().first?.decode((Int64, Bool).self) else { return nil }
            let (delivered, acknowledges) = device
            guard after <= delivered else { throw CursorAheadError(after: after, lastDelivered: delivered) }
            var acknowledged = 0
            if acknowledges {
                try await connection.query("SELECT 1 FROM device WHERE id = \(deviceID) FOR UPDATE", logger: logger).collect()
                acknowledged = try await connection.count(
                    "DELETE FROM message WHERE device_id = \(deviceID) AND seq <= \(after) RETURNING 1", logger: logger)
            }
            let messages = try await Self.liveMessages(deviceID: deviceID, after: after, limit: limit, now: now, connection, logger)
            try await Self.markDelivered(messages, above: delivered, deviceID: deviceID, connection, logger)
            return PollResult(messages: messages, acknowledged: acknowledged)
        }
        if result == nil { devices.forget(deviceID: deviceID) }
        return result
    }

    func messages(deviceID: String, after: Int64, limit: Int, now: Int64) async throws -> [RelayMessage]? {
        try await transaction { connection -> [RelayMessage]? in
            let messages = try await Self.liveMessages(deviceID: deviceID, after: after, limit: limit, now: now, connection, logger)
            if messages.isEmpty {
                let exists = try await connection.query("SELECT 1 FROM device WHERE id = \(deviceID)", logger: logger)
                    .collect().isEmpty == false
                return exists ? [] : nil
            }
            try await Self.markDelivered(messages, above: after, deviceID: deviceID, connection, logger)
            return messages
        }
    }

    private static func liveMessages(
        deviceID: String, after: Int64, limit: Int, now: Int64, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [RelayMessage] {
        let rows = try await connection.query("""
            SELECT seq, message_id, data, notification, priority, sent_at, expires_at FROM message
            WHERE device_id = \(deviceID) AND seq > \(after) AND expires_at > \(now) ORDER BY seq LIMIT \(limit)
            """, logger: logger).collect()
        let decoder = JSONDecoder()
        return try rows.map { row in
            let (seq, id, data, notification, priority, sentAt, expiresAt) =
                try row.decode((Int64, String, String, String?, String, Int64, Int64).self)
            return try RelayMessage(
                seq: seq, id: id, data: data, notification: notification, priority: priority, sentAt: sentAt,
                expiresAt: expiresAt, decoder: decoder)
        }
    }

    /// Never lowers the mark: a woken poll's mark may land after a later poll's.
    private static func markDelivered(
        _ messages: [RelayMessage], above delivered: Int64, deviceID: String, _ connection: PostgresConnection,
        _ logger: Logger
    ) async throws {
        guard let last = messages.last?.seq, last > delivered else { return }
        try await connection.query(
            "UPDATE device SET delivered_seq = GREATEST(delivered_seq, \(last)) WHERE id = \(deviceID)", logger: logger
        ).collect()
    }

    /// Drops messages whose TTL passed (polls skip them anyway) and returns how many. Every instance sweeps; rows a
    /// send or poll holds are left for the next sweep, so the sweep never waits for one, nor it for the sweep.
    func deleteExpiredMessages(now: Int64) async throws -> Int {
        try await rows("""
            DELETE FROM message WHERE (device_id, seq) IN
                (SELECT device_id, seq FROM message WHERE expires_at <= \(now) FOR UPDATE SKIP LOCKED)
            RETURNING 1
            """).count
    }

    /// After the change commits, in a transaction of its own (`WakeAnnouncer`): a NOTIFY inside the send's
    /// transaction would make every send wait for the previous one's disk flush (docs/benchmarks.md).
    private func wake(deviceID: String) {
        announcer.announce(deviceID: deviceID)
    }

    /// A notification alone writes no WAL, so its commit waits for no disk.
    private static func notify(_ deviceIDs: [String], client: PostgresClient, settings: PostgresSettings, logger: Logger) async {
        do {
            _ = try await client.query(
                "SELECT pg_notify(\(wakeChannel), device_id) FROM unnest(\(deviceIDs)::text[]) AS device_id", logger: logger
            ).collect()
        } catch {
            logger.warning("\(PostgresFailure(settings: settings, doing: "announcing changes to \(deviceIDs.count) device(s) to the other instances", error: error))")
        }
    }
}

/// A database operation failed outside a request (migrating, sweeping): says what, where, and why.
struct PostgresFailure: Error, CustomStringConvertible {
    var settings: PostgresSettings
    var doing: String
    var error: any Error

    var description: String {
        let reason = PostgresErrorText(error).text
        return "PostgreSQL at \(settings.endpoint) (database \(settings.database)): \(doing) failed: \(reason)"
    }
}
