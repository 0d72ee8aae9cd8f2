import Foundation
import Logging
import PostgresNIO
import RelayWire
import _ConnectionPoolModule

/// The relay's state in PostgreSQL, shared by every relay instance on the database. The semantics are
/// `RelayStore`'s; each operation is one transaction (PostgreSQL's WAL flush groups concurrent commits by itself).
///
/// A send takes its device's row lock first (`last_seq = last_seq + 1`) and holds it until it commits, so a device's
/// sequence numbers grow in commit order, and a poll that sees seq n sees every message below it. Once committed, a
/// send announces itself with `NOTIFY pushrelay_wake, '<device id>'`, delivered to every instance's
/// `PostgresWakeListener`; the message itself stays in the table.
final class PostgresRelayStore: RelayStorage {
    static let wakeChannel = "pushrelay_wake"
    let isShared = true

    let settings: PostgresSettings
    /// Undelivered messages one device may have, counted across instances.
    let maximumQueuedPerDevice: Int
    let logger: Logger
    private let client: PostgresClient
    /// The pool runs from `open` until `close`.
    private let pool: Task<Void, Never>
    private let devices = DeviceCache()
    private let outageLog: OutageLog
    private let announcer: WakeAnnouncer
    private let sends: StatementBatcher<PostgresStatements.EnqueueBatch.Send, SendOutcome>
    private let polls: StatementBatcher<PostgresStatements.PollBatch.Poll, [PostgresStatements.PollBatch.Row]>

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
        outageLog = OutageLog(logger: logger)
        let client = PostgresClient(configuration: settings.clientConfiguration(), backgroundLogger: logger)
        self.client = client
        announcer = WakeAnnouncer { deviceIDs in
            await Self.notify(deviceIDs, client: client, settings: settings, logger: logger)
        }
        sends = StatementBatcher(largest: Self.largestBatch, deadline: settings.operationTimeout) { batch, deadline in
            try await Self.store(batch, limit: maximumQueuedPerDevice, until: deadline, client: client, logger: logger)
        }
        polls = StatementBatcher(largest: Self.largestBatch, deadline: settings.operationTimeout) { batch, deadline in
            try await Self.inDeviceOrder(batch, deviceID: \.deviceID, row: \.0, until: deadline, client: client, logger: logger) {
                PostgresStatements.PollBatch(polls: $0)
            }
        }
        // Immediate: the pool counts as running before the first lease (postgres-nio warns of a lease before `run`).
        pool = Task.immediate { await client.run() }
    }

    /// Closes the pool's connections; later operations fail.
    func close() {
        pool.cancel()
    }

    /// Every request's database work goes through here: it ends within `settings.operationTimeout` whatever the
    /// database does (a batched one by its `StatementBatcher`'s deadline, `bounded` false, since a deadline of its own
    /// could answer "not stored" while the batch still commits it), and a failure says what the relay was doing and
    /// what PostgreSQL said. A failure a retry may cure is `StoreUnavailable` (503 and Retry-After), a change sent and
    /// then lost `StoreOutcomeUnknown`, any other PostgreSQL error `StoreFailure` (500); the relay's own outcomes (a
    /// full queue, a cursor ahead) come out as themselves.
    func guarded<Result: Sendable>(
        _ operation: String, statement: String? = nil, bounded: Bool = true,
        _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        do {
            let result = try await bounded ? StoreDeadline.run(within: settings.operationTimeout, body) : body()
            outageLog.succeeded()
            return result
        } catch {
            throw failure(error, operation: operation, statement: statement)
        }
    }

    private func failure(_ error: any Error, operation: String, statement: String?) -> any Error {
        switch error {
        case let lost as StatementGate.Lost:
            let cause = failure(lost.underlying, operation: operation, statement: statement)
            let reason = (cause as? StoreUnavailable)?.reason ?? "\(cause)"
            return StoreOutcomeUnknown(operation: operation, reason: "\(reason), after the statement had gone out")
        case is StoreDeadline.Passed:
            return unavailable(StoreUnavailable(
                operation: operation,
                reason: "PostgreSQL at \(settings.endpoint) did not answer within \(settings.operationTimeout.components.seconds) s"))
        case let error as ConnectionPoolError:
            // After a minute of failed connection attempts the pool fails requests at once until one succeeds.
            let reason = error == .connectionCreationCircuitBreakerTripped
                ? "no connection to PostgreSQL at \(settings.endpoint) could be opened for a minute; still trying"
                : "PostgreSQL at \(settings.endpoint): the connection pool \(error == .poolShutdown ? "is shut down" : "gave up the request")"
            return unavailable(StoreUnavailable(operation: operation, reason: reason))
        case is CancellationError:
            return unavailable(StoreUnavailable(operation: operation, reason: "PostgreSQL at \(settings.endpoint): cancelled"))
        default:
            let error = PostgresSchema.unwrapped(error)
            guard let failure = error as? PSQLError else { return error }
            if failure.serverInfo?[.sqlState] == PostgresSchema.queueFullState {
                return DeviceQueueFull(limit: maximumQueuedPerDevice)
            }
            let reason = "PostgreSQL at \(settings.endpoint): \(PostgresErrorText(failure, statement: statement).text)"
            if failure.isTransient { return unavailable(StoreUnavailable(operation: operation, reason: reason)) }
            return StoreFailure(operation: operation, reason: reason)
        }
    }

    /// `StoreDeadline` cancels the work it gave up on.
    private static func closingWhenCancelled<Result>(
        _ connection: PostgresConnection, _ body: () async throws -> Result
    ) async throws -> Result {
        try await withTaskCancellationHandler(operation: body) { _ = connection.close() as EventLoopFuture<Void> }
    }

    private func unavailable(_ error: StoreUnavailable) -> StoreUnavailable {
        outageLog.failed(error)
        return error
    }

    func transaction<Result: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await guarded(operation) { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in try await body(connection) }
        }
    }

    /// A statement outside a transaction, its rows read.
    @discardableResult
    func rows(_ operation: String, _ query: PostgresQuery) async throws -> [PostgresRow] {
        try await guarded(operation) { [client, logger] in try await client.query(query, logger: logger).collect() }
    }

    /// A prepared statement, outside a transaction: parsed and planned once per connection. A connection still
    /// busy with it at the deadline is closed, so that one that died without a word (a network gone silent, which
    /// TCP would notice only after a quarter of an hour) leaves the pool, which opens another.
    func rows<Statement: PostgresPreparedStatement>(
        _ operation: String, _ statement: Statement
    ) async throws -> [Statement.Row] where Statement.Row: Sendable {
        try await guarded(operation, statement: Statement.sql) { [client, logger] in
            try await Self.rows(statement, client: client, logger: logger, gate: StatementGate())
        }
    }

    private static func rows<Statement: PostgresPreparedStatement>(
        _ statement: Statement, client: PostgresClient, logger: Logger, gate: StatementGate
    ) async throws -> [Statement.Row] where Statement.Row: Sendable {
        try await client.withConnection { connection in
            try gate.send()
            return try await closingWhenCancelled(connection) {
                var rows: [Statement.Row] = []
                for try await row in try await connection.execute(statement, logger: logger) { rows.append(row) }
                return rows
            }
        }
    }

    func registerDevice(name: String, platform: String) async throws -> DeviceRegistration {
        let registration = DeviceRegistration(
            deviceID: Identifiers.deviceID(), token: Identifiers.pushToken(), secret: Identifiers.deviceSecret())
        try await rows("registering a device", """
            INSERT INTO device (id, token, secret_hash, name, platform, created_at)
            VALUES (\(registration.deviceID), \(registration.token), \(Data(secretDigest(registration.secret))), \(name),
                    \(platform), \(nowMilliseconds()))
            """)
        devices.remember(registration)
        return registration
    }

    func device(id: String) async throws -> StoredDevice? {
        if let cached = devices.device(id: id) { return cached }
        let digest = try await rows("looking up device \(id)", "SELECT secret_hash FROM device WHERE id = \(id)").first?.decode(Data.self)
        guard let digest else { return nil }
        let device = StoredDevice(id: id, secretDigest: [UInt8](digest))
        devices.remember(device)
        return device
    }

    func cachedDevice(id: String) -> StoredDevice? { devices.device(id: id) }

    func cachedDeviceID(forToken token: String) -> String? { devices.deviceID(token: token) }

    func deviceID(forToken token: String) async throws -> String? {
        if let cached = devices.deviceID(token: token) { return cached }
        let id = try await rows("looking up a push token", "SELECT id FROM device WHERE token = \(token)").first?.decode(String.self)
        if let id { devices.remember(token: token, deviceID: id) }
        return id
    }

    /// The foreign key's cascade drops the device's messages; the wake-up ends a poll of it waiting on any instance
    /// (it reads again and finds the device gone).
    func deleteDevice(id: String) async throws -> Bool {
        devices.forget(deviceID: id)
        let deleted = try await rows("deleting device \(id)", "DELETE FROM device WHERE id = \(id) RETURNING 1").count > 0
        if deleted { wake(deviceID: id) }
        return deleted
    }

    func deviceCount() async throws -> Int {
        try await rows("counting devices", "SELECT count(*) FROM device").first?.decode(Int.self) ?? 0
    }

    /// Sends go to the database in batches (`StatementBatcher`): one prepared statement and one commit
    /// (`pushrelay_enqueue_batch` in PostgresSchema) for every send that arrived while the previous batch was on its
    /// way. Each send takes its device's row lock and holds it until the batch commits, so the next send to the
    /// device waits and seqs commit in order.
    func enqueue(_ outgoing: OutgoingMessage, deviceID: String, now: Int64) async throws -> EnqueueResult? {
        let (data, notification) = outgoing.encodedPayload()
        let send = PostgresStatements.EnqueueBatch.Send(
            deviceID: deviceID, messageID: Identifiers.messageID(), data: data, notification: notification,
            priority: outgoing.priority.rawValue, collapseKey: outgoing.collapseKey, sentAt: now,
            expiresAt: now + outgoing.ttlMilliseconds)
        let outcome = try await guarded(
            "storing a message for device \(deviceID)", statement: PostgresStatements.EnqueueBatch.sql, bounded: false
        ) { [sends] in try await sends.submit(send)
        }
        switch outcome {
        case .noDevice:
            devices.forget(deviceID: deviceID)
            return nil
        case .full:
            throw DeviceQueueFull(limit: maximumQueuedPerDevice)
        case .stored(let seq, let collapsed):
            wake(deviceID: deviceID)
            let message = RelayMessage(
                seq: seq, id: send.messageID, data: outgoing.data, notification: outgoing.notification,
                priority: outgoing.priority, sentAt: now, expiresAt: send.expiresAt)
            return EnqueueResult(message: message, collapsed: collapsed)
        }
    }

    enum SendOutcome: Sendable {
        case stored(seq: Int64, collapsed: Int)
        case full
        case noDevice
    }

    private static func store(
        _ sends: [PostgresStatements.EnqueueBatch.Send], limit: Int, until deadline: ContinuousClock.Instant,
        client: PostgresClient, logger: Logger
    ) async throws -> [SendOutcome] {
        let rows = try await inDeviceOrder(sends, deviceID: \.deviceID, row: \.0, until: deadline, client: client, logger: logger) {
            PostgresStatements.EnqueueBatch(sends: $0, limit: Int64(limit))
        }
        return rows.map { rows in
            guard let (_, seq, collapsed) = rows.first else { return .noDevice }
            return seq.map { .stored(seq: $0, collapsed: collapsed) } ?? .full
        }
    }

    /// Runs a batch's statement with its items ordered by device, so that two batches take their devices' row locks
    /// in the same order and never wait for each other crosswise, and hands each item its rows (`ord`, the 1-based
    /// place in the statement's arrays, is the row's first column). By the batch's deadline, its earliest request's,
    /// whose caller is answered then with what is known: not stored (`StoreDeadline.Passed`) while the statement
    /// waited for a connection, `StatementGate.Lost` once it had gone out.
    private static func inDeviceOrder<Item, Statement: PostgresPreparedStatement>(
        _ items: [Item], deviceID: (Item) -> String, row ord: (Statement.Row) -> Int32, until deadline: ContinuousClock.Instant,
        client: PostgresClient, logger: Logger, statement: ([Item]) -> Statement
    ) async throws -> [[Statement.Row]] where Statement.Row: Sendable {
        let order = items.indices.sorted { deviceID(items[$0]) < deviceID(items[$1]) }
        let statement = statement(order.map { items[$0] })
        let gate = StatementGate()
        let rows: [Statement.Row]
        do {
            rows = try await StoreDeadline.run(until: deadline) {
                try await Self.rows(statement, client: client, logger: logger, gate: gate)
            }
        } catch {
            throw gate.outcome(of: error)
        }
        var rowsByItem = [[Statement.Row]](repeating: [], count: items.count)
        for row in rows { rowsByItem[order[Int(ord(row)) - 1]].append(row) }
        return rowsByItem
    }

    /// Polls go to the database in batches like sends (`pushrelay_poll_batch`): a poll with nothing to acknowledge
    /// or deliver writes nothing, so a batch of them commits without waiting for the disk.
    func poll(deviceID: String, after: Int64, limit: Int, now: Int64) async throws -> PollResult? {
        let poll = PostgresStatements.PollBatch.Poll(deviceID: deviceID, after: after, limit: Int32(limit), now: now, acknowledge: true)
        guard let reply = try await read(poll) else {
            devices.forget(deviceID: deviceID)
            return nil
        }
        guard after <= reply.delivered else { throw CursorAheadError(after: after, lastDelivered: reply.delivered) }
        return PollResult(messages: reply.messages, acknowledged: reply.acknowledged)
    }

    func messages(deviceID: String, after: Int64, limit: Int, now: Int64) async throws -> [RelayMessage]? {
        let poll = PostgresStatements.PollBatch.Poll(deviceID: deviceID, after: after, limit: Int32(limit), now: now, acknowledge: false)
        return try await read(poll)?.messages
    }

    /// Another instance may have committed meanwhile: only a read can tell.
    func recentMessages(deviceID: String, after: Int64, now: Int64) -> [RelayMessage]? { nil }

    /// Another instance may have sent or delivered meanwhile: only a read can tell.
    func pollFromMemory(deviceID: String, after: Int64, now: Int64) -> PollResult? { nil }

    private func read(_ poll: PostgresStatements.PollBatch.Poll) async throws -> PostgresStatements.PollBatch.Reply? {
        let operation = "reading the messages of device \(poll.deviceID)"
        do {
            let rows = try await guarded(operation, statement: PostgresStatements.PollBatch.sql, bounded: false) {
                [polls] in try await polls.submit(poll)
            }
            return try PostgresStatements.PollBatch.Reply(rows)
        } catch let lost as StoreOutcomeUnknown {
            // A poll's retry does what the lost one may have done (acknowledge the same cursor, hand out the same
            // messages): for the device the retryable 503 stays true.
            throw StoreUnavailable(operation: operation, reason: lost.reason)
        }
    }

    /// Drops messages whose TTL passed (polls skip them anyway) and returns how many. Every instance sweeps; rows a
    /// send or poll holds are left for the next sweep, so the sweep never waits for one. A send's collapse or a
    /// poll's acknowledgement may wait for rows the sweep holds, so it deletes in batches, each its own short
    /// transaction.
    func deleteExpiredMessages(now: Int64) async throws -> Int {
        var deleted = 0
        while true {
            let batch = try await rows("sweeping expired messages", """
                DELETE FROM message WHERE (device_id, seq) IN
                    (SELECT device_id, seq FROM message WHERE expires_at <= \(now) LIMIT \(Self.sweepBatch) FOR UPDATE SKIP LOCKED)
                RETURNING 1
                """).count
            deleted += batch
            guard batch == Self.sweepBatch else { return deleted }
        }
    }

    private static let sweepBatch = 1000
    /// Enough for a batch to carry a busy instance's sends (a batch commits in about a millisecond), small enough
    /// that its row locks are held briefly.
    private static let largestBatch = 256

    /// After the change commits, in a transaction of its own (`WakeAnnouncer`): a NOTIFY inside the send's
    /// transaction would make every send wait for the previous one's disk flush (docs/benchmarks.md).
    private func wake(deviceID: String) {
        announcer.announce(deviceID: deviceID)
    }

    /// A notification alone writes no WAL, so its commit waits for no disk. Within the deadline like a request's
    /// work: the announcer sends one batch at a time, so a batch stuck on a dead connection would hold up every
    /// later wake-up.
    private static func notify(_ deviceIDs: [String], client: PostgresClient, settings: PostgresSettings, logger: Logger) async {
        do {
            _ = try await StoreDeadline.run(within: settings.operationTimeout) {
                try await client.query(
                    "SELECT pg_notify(\(wakeChannel), device_id) FROM unnest(\(deviceIDs)::text[]) AS device_id", logger: logger
                ).collect()
            }
        } catch is StoreDeadline.Passed {
            logger.warning("PostgreSQL at \(settings.endpoint) did not take the wake-ups of \(deviceIDs.count) device(s) within \(settings.operationTimeout.components.seconds) s: polls on other instances find their messages when their wait ends")
        } catch {
            logger.warning("\(PostgresFailure(settings: settings, doing: "announcing changes to \(deviceIDs.count) device(s) to the other instances", error: error))")
        }
    }
}
