import Foundation
import GRDB
import RelayWire

/// The relay's SQLite state (WAL). Messages stay until the device acknowledges them or they expire, so
/// delivery survives a restart. Sends are committed in groups (`GroupCommit`); polls read without waiting for a
/// commit, their acknowledgements joining the next group. Statements are compiled once (GRDB's statement cache); device credentials are cached, since every request needs them and they never
/// change (a deleted device is noticed by the write).
final class SQLiteRelayStore: RelayStorage {
    let pool: DatabasePool
    /// Undelivered messages one device may have (`RelayConfig.maximumQueuedPerDevice`).
    let maximumQueuedPerDevice: Int
    private let commits: GroupCommit
    private let devices = DeviceCache()
    private let queueBounds = QueueBounds()
    private let pendingWrites = PendingPollWrites()
    private let recentSends = RecentSends()
    /// Polls that arrive while others are being read share the next read transaction and its hand-off to a reader.
    private let reads: StatementBatcher<PollRead, Result<PollRead.Found?, any Error>>
    let isShared = false

    /// - Parameter onExpired: told how many messages each sweep dropped because their TTL passed.
    init(
        directory: String, maximumQueuedPerDevice: Int = RelayConfig.defaultMaximumQueuedPerDevice,
        onExpired: @escaping @Sendable (Int) -> Void = { _ in }
    ) throws {
        self.maximumQueuedPerDevice = maximumQueuedPerDevice
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw RelayStoreError(path: directory, reason: error.localizedDescription)
        }
        // The directory may predate us with looser permissions; message payloads are private.
        guard chmod(directory, 0o700) == 0 else { throw RelayStoreError(path: directory, errno: errno) }
        let path = (directory as NSString).appendingPathComponent("relay.sqlite")
        // Create the file 0600 before SQLite opens it: SQLite gives the -wal and -shm files the same mode.
        let fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw RelayStoreError(path: path, errno: errno) }
        close(fd)
        guard chmod(path, 0o600) == 0 else { throw RelayStoreError(path: path, errno: errno) }
        var configuration = Configuration()
        // Another connection holding the file a moment (an admin's sqlite3, a backup, a store of this process still
        // closing) is waited for, up to a request's deadline, rather than failing the request at once.
        configuration.busyMode = .timeout(TimeInterval(StoreDeadline.operation.components.seconds))
        // A reader's page cache (2 MiB each by default, five readers) is memory the kernel's page cache already
        // holds for the same file: polls read a few recent rows, and their credentials are cached above it.
        configuration.prepareDatabase { db in
            if db.configuration.readonly { try db.execute(sql: "PRAGMA cache_size = -128") }
        }
        let pool = try DatabasePool(path: path, configuration: configuration)
        self.pool = pool
        // A read changes nothing, so it need not end by its deadline to keep an answer true.
        reads = StatementBatcher(largest: 256, deadline: StoreDeadline.operation) { batch, _ in
            try await pool.read { db in batch.map { read in Result { try read.run(db) } } }
        }
        // Expiry is enforced before every batch of sends and polls, so an expired message is never returned and
        // none outlives the next request by much.
        commits = GroupCommit(writer: pool) { db in
            try db.cachedStatement(sql: "DELETE FROM message WHERE expires_at <= ?").execute(arguments: [nowMilliseconds()])
            onExpired(db.changesCount)
        }
        // GRDB's WAL default (NORMAL) survives a crashed process but not a power cut; a message the send API has
        // accepted must survive both, so every commit waits for the disk.
        try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
        try Self.migrator.migrate(pool)
        try pool.write { db in try Self.deleteExpiredAccessTokens(db, now: nowMilliseconds()) }
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "device") { t in
                t.primaryKey("id", .text)
                t.column("token", .text).notNull().unique()
                t.column("secret_hash", .blob).notNull()
                t.column("name", .text).notNull()
                t.column("platform", .text).notNull()
                t.column("created_at", .integer).notNull()
            }
            // AUTOINCREMENT: a seq is never reused, even after every row was deleted, so a device's
            // cursor can never hide a newer message.
            try db.create(table: "message") { t in
                t.autoIncrementedPrimaryKey("seq")
                t.column("device_id", .text).notNull().references("device", onDelete: .cascade)
                t.column("message_id", .text).notNull()
                t.column("data", .text).notNull()
                t.column("notification", .text)
                t.column("priority", .text).notNull()
                t.column("collapse_key", .text)
                t.column("sent_at", .integer).notNull()
                t.column("expires_at", .integer).notNull()
            }
            try db.create(index: "message_by_device", on: "message", columns: ["device_id", "seq"])
            try db.create(index: "message_by_expiry", on: "message", columns: ["expires_at"])
        }
        migrator.registerMigration("access-tokens", migrate: createAccessTokenTable)
        // The highest seq handed to each device, so an acknowledgement beyond it is recognized as not one. Devices
        // registered before may hold any seq given out so far.
        migrator.registerMigration("delivered-seq") { db in
            try db.alter(table: "device") { t in t.add(column: "delivered_seq", .integer).notNull().defaults(to: 0) }
            try db.execute(sql: """
                UPDATE device SET delivered_seq = coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'message'), 0)
                """)
        }
        migrator.registerMigration("webpush-subscriptions", migrate: createWebPushSubscriptionTable)
        return migrator
    }

    func registerDevice(name: String, platform: String) async throws -> DeviceRegistration {
        let registration = DeviceRegistration(
            deviceID: Identifiers.deviceID(), token: Identifiers.pushToken(), secret: Identifiers.deviceSecret())
        try await pool.write { db in
            try db.execute(
                sql: "INSERT INTO device (id, token, secret_hash, name, platform, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [registration.deviceID, registration.token, Data(secretDigest(registration.secret)),
                            name, platform, nowMilliseconds()])
        }
        devices.remember(registration)
        return registration
    }

    func device(id: String) async throws -> StoredDevice? {
        if let cached = devices.device(id: id) { return cached }
        let device = try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT secret_hash FROM device WHERE id = ?", arguments: [id]).map {
                StoredDevice(id: id, secretDigest: [UInt8]($0["secret_hash"] as Data))
            }
        }
        if let device { devices.remember(device) }
        return device
    }

    func cachedDevice(id: String) -> StoredDevice? { devices.device(id: id) }

    func cachedDeviceID(forToken token: String) -> String? { devices.deviceID(token: token) }

    func deviceID(forToken token: String) async throws -> String? {
        if let cached = devices.deviceID(token: token) { return cached }
        let id = try await pool.read { db in
            try String.fetchOne(db, sql: "SELECT id FROM device WHERE token = ?", arguments: [token])
        }
        if let id { devices.remember(token: token, deviceID: id) }
        return id
    }

    /// The foreign key's cascade drops the device's messages.
    func deleteDevice(id: String) async throws -> Bool {
        devices.forget(deviceID: id)
        queueBounds.forget(deviceID: id)
        pendingWrites.forget(deviceID: id)
        recentSends.forget(deviceID: id)
        let deleted = try await pool.write { db in
            try db.execute(sql: "DELETE FROM device WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
        // A send or a poll between the first forgetting and the delete may have remembered it again.
        recentSends.forget(deviceID: id)
        return deleted
    }

    func deviceCount() async throws -> Int {
        try await pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM device") ?? 0 }
    }

    func enqueue(_ outgoing: OutgoingMessage, deviceID: String, now: Int64) async throws -> EnqueueResult? {
        try await withCheckedThrowingContinuation { continuation in
            enqueue(outgoing, deviceID: deviceID, now: now) { continuation.resume(with: $0) }
        }
    }

    /// Told by the group commit itself, on the writer's thread, once the message is on disk.
    func enqueue(_ outgoing: OutgoingMessage, deviceID: String, now: Int64,
                 whenCommitted: @escaping @Sendable (Result<EnqueueResult?, any Error>) -> Void) {
        let (data, notification) = outgoing.encodedPayload()
        let maximumQueued = maximumQueuedPerDevice
        let (devices, queueBounds, recentSends) = (devices, queueBounds, recentSends)
        commits.write({ db -> EnqueueResult? in
            var collapsed = 0
            if let key = outgoing.collapseKey {
                try db.cachedStatement(sql: "DELETE FROM message WHERE device_id = ? AND collapse_key = ?")
                    .execute(arguments: [deviceID, key])
                collapsed = db.changesCount
            }
            let hasRoom = try queueBounds.admits(deviceID: deviceID, limit: maximumQueued) {
                try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM message WHERE device_id = ?"),
                                 arguments: [deviceID]) ?? 0
            }
            guard hasRoom else { throw DeviceQueueFull(limit: maximumQueued) }
            var message = RelayMessage(
                seq: 0, id: Identifiers.messageID(), data: outgoing.data, notification: outgoing.notification,
                priority: outgoing.priority, sentAt: now, expiresAt: now + outgoing.ttlMilliseconds)
            // An unknown device is told by the message's foreign key rather than by a query of its own: that
            // query cost every send a lookup the insert repeats anyway. The statements before it changed nothing
            // for a device that does not exist.
            do {
                try db.cachedStatement(sql: """
                    INSERT INTO message (device_id, message_id, data, notification, priority, collapse_key, sent_at, expires_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """).execute(
                    arguments: [deviceID, message.id, data, notification, message.priority.rawValue, outgoing.collapseKey,
                                message.sentAt, message.expiresAt])
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY {
                return nil
            }
            message.seq = db.lastInsertedRowID
            queueBounds.inserted(deviceID: deviceID)
            return EnqueueResult(message: message, collapsed: collapsed)
        }, whenCommitted: { result in
            switch result {
            case .success(let enqueued?): recentSends.committed(enqueued.message, deviceID: deviceID)
            case .success(nil):
                devices.forget(deviceID: deviceID)
                queueBounds.forget(deviceID: deviceID)
            case .failure: break
            }
            whenCommitted(result)
        })
    }

    /// An `after` beyond the last message this relay delivered to the device acknowledges nothing: the device has
    /// seen another state of the relay than this one (restored from an older backup, or a forged reply), and taking
    /// it as an acknowledgement would delete messages the device never received, among them those sent since.
    ///
    /// A poll reads through a reader (in a batch with the polls that arrive meanwhile) and answers without waiting for
    /// the disk: its acknowledgement and delivered
    /// mark join the next group commit (`recordLater`). Neither needs to be durable first: a lost acknowledgement only
    /// delivers its messages again, which the device recognizes, and a lost mark makes the next poll start over
    /// (`cursor_ahead`). A poll with nothing to acknowledge or deliver writes nothing.
    func poll(deviceID: String, after: Int64, limit: Int, now: Int64) async throws -> PollResult? {
        // Before the read: what commits meanwhile leaves memory but is then in what the read sees.
        let pending = pendingWrites.marks(deviceID: deviceID)
        let removals = recentSends.removals
        let read = try await reads.submit(PollRead(
            deviceID: deviceID, after: max(after, pending.acknowledged), limit: limit, now: now,
            acknowledging: after > pending.acknowledged ? pending.acknowledged...after : nil)).get()
        guard let read else {
            devices.forget(deviceID: deviceID)
            return nil
        }
        let delivered = max(read.delivered, pending.delivered)
        guard after <= delivered else { throw CursorAheadError(after: after, lastDelivered: delivered) }
        if read.messages.isEmpty {
            recentSends.nothingLive(beyond: max(after, pending.acknowledged), deviceID: deviceID, removalsBefore: removals)
        }
        let handedOut = max(delivered, read.messages.last?.seq ?? 0)
        recentSends.polled(after: after, handedOut: handedOut, deviceID: deviceID)
        recordLater(deviceID: deviceID, PendingPollWrites.Marks(
            acknowledged: read.acknowledged > 0 ? after : 0, delivered: handedOut > delivered ? handedOut : 0))
        return PollResult(messages: read.messages, acknowledged: read.acknowledged)
    }

    /// What `poll` would return when memory tells it (`RecentSends.acknowledge`): the device acknowledges what it was
    /// handed and nothing is live beyond. Nil when only `poll` can tell. Its acknowledgement joins the next commit, as
    /// a read poll's does.
    func pollFromMemory(deviceID: String, after: Int64, now: Int64) -> PollResult? {
        guard let acknowledged = recentSends.acknowledge(after: after, deviceID: deviceID, now: now) else { return nil }
        recordLater(deviceID: deviceID, PendingPollWrites.Marks(acknowledged: acknowledged > 0 ? after : 0))
        return PollResult(messages: [], acknowledged: acknowledged)
    }

    /// A poll woken by a send reads the same way; it acknowledges nothing (its first read did).
    func messages(deviceID: String, after: Int64, limit: Int, now: Int64) async throws -> [RelayMessage]? {
        let messages = try await reads.submit(
            PollRead(deviceID: deviceID, after: after, limit: limit, now: now, acknowledging: nil)).get()?.messages
        if let last = messages?.last { recentSends.handedOut(upTo: last.seq, deviceID: deviceID) }
        recordLater(deviceID: deviceID, PendingPollWrites.Marks(delivered: messages?.last?.seq ?? 0))
        return messages
    }

    /// The message a send just committed, when it is all a poll it woke needs (`RecentSends`): no read, and no task.
    func recentMessages(deviceID: String, after: Int64, now: Int64) -> [RelayMessage]? {
        let messages = recentSends.messages(after: after, deviceID: deviceID, now: now)
        if let last = messages?.last { recordLater(deviceID: deviceID, PendingPollWrites.Marks(delivered: last.seq)) }
        return messages
    }

    /// What one poll reads: the device's delivered mark, how many messages its `after` acknowledges (those with seq
    /// in `acknowledging`), and the next live messages.
    struct PollRead: Sendable {
        var deviceID: String
        var after: Int64
        var limit: Int
        var now: Int64
        var acknowledging: ClosedRange<Int64>?

        struct Found: Sendable {
            var delivered: Int64
            var acknowledged: Int
            var messages: [RelayMessage]
        }

        /// Nil when the device does not exist.
        func run(_ db: Database) throws -> Found? {
            guard let delivered = try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT delivered_seq FROM device WHERE id = ?"), arguments: [deviceID]) else { return nil }
            let acknowledged = try acknowledging.map { range in
                try Int.fetchOne(
                    db.cachedStatement(sql: "SELECT count(*) FROM message WHERE device_id = ? AND seq > ? AND seq <= ?"),
                    arguments: [deviceID, range.lowerBound, range.upperBound]) ?? 0
            } ?? 0
            return Found(
                delivered: delivered, acknowledged: acknowledged,
                messages: try SQLiteRelayStore.liveMessages(deviceID: deviceID, after: after, limit: limit, now: now, db))
        }
    }

    /// Writes what a poll acknowledged and handed out with the next group commit (zero: nothing of that kind).
    private func recordLater(deviceID: String, _ marks: PendingPollWrites.Marks) {
        guard marks != PendingPollWrites.Marks() else { return }
        let pendingWrites = pendingWrites
        pendingWrites.raise(deviceID: deviceID, to: marks)
        commits.writeLater({ db in
            if marks.acknowledged > 0 {
                try db.cachedStatement(sql: "DELETE FROM message WHERE device_id = ? AND seq <= ?")
                    .execute(arguments: [deviceID, marks.acknowledged])
            }
            if marks.delivered > 0 { try Self.markDelivered(upTo: marks.delivered, deviceID: deviceID, db) }
        }, committed: { committed in
            if committed { pendingWrites.committed(deviceID: deviceID, marks) }
        })
    }

    /// At shutdown: what polls wrote is committed before the process ends, so a device's cursor stays valid across
    /// a restart.
    func commitPendingWrites() async throws {
        try await commits.write { _ in }
    }

    /// Expired messages are deleted before each shared commit; polls alone commit nothing, so this, run every
    /// second, starts one when something has expired (a lookup in the expiry index otherwise).
    func sweepWhenExpired(now: Int64) async throws {
        let expired = try await pool.read { db in
            try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM message WHERE expires_at <= ? LIMIT 1"), arguments: [now]) ?? false
        }
        if expired { commits.writeLater { _ in } }
    }

    /// Never lowers the mark: a poll's queued mark may land after a later poll's.
    private static func markDelivered(upTo seq: Int64, deviceID: String, _ db: Database) throws {
        try db.cachedStatement(sql: "UPDATE device SET delivered_seq = max(delivered_seq, ?) WHERE id = ?")
            .execute(arguments: [seq, deviceID])
    }

    private static func liveMessages(deviceID: String, after: Int64, limit: Int, now: Int64, _ db: Database) throws
        -> [RelayMessage] {
        let rows = try Row.fetchAll(
            db.cachedStatement(sql: """
                SELECT seq, message_id, data, notification, priority, sent_at, expires_at FROM message
                WHERE device_id = ? AND seq > ? AND expires_at > ? ORDER BY seq LIMIT ?
                """),
            arguments: [deviceID, after, now, limit])
        let decoder = JSONDecoder()
        return try rows.map { row in
            try RelayMessage(
                seq: row["seq"], id: row["message_id"], data: row["data"], notification: row["notification"],
                priority: row["priority"], sentAt: row["sent_at"], expiresAt: row["expires_at"], decoder: decoder)
        }
    }
}

/// A poll acknowledged a sequence number this relay never delivered to the device.
struct CursorAheadError: Error {
    var after: Int64
    var lastDelivered: Int64
}

struct RelayStoreError: Error, CustomStringConvertible {
    var path: String
    var reason: String

    init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    init(path: String, errno code: Int32) {
        self.init(path: path, reason: String(cString: strerror(code)))
    }

    var description: String { "cannot create or secure \(path): \(reason)" }
}
