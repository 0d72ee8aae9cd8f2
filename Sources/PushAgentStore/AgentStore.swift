import Foundation
import GRDB
import PushAgentCore
import SQLiteWrites
import Synchronization

/// The agent's state in one SQLite database (WAL): device identity, accounts, approvals, processed ids, cursor, audit.
public final class AgentStore: Sendable {
    let pool: DatabasePool
    let sealer: SecretSealer
    let attempts: AttemptLedger
    /// A read-only connection of its own for the reads every push makes (`readOnThisThread`).
    private let pushReader: DatabaseQueue
    /// The device identity as last read (nil: not read since a save; `.some(nil)`: there is none): every long-poll needs
    /// it, and only `saveDeviceIdentity` changes it. `saves` counts the saves, so that a read which began before one
    /// does not put back what it replaced.
    private let knownDevice = Mutex<(identity: DeviceIdentity??, saves: Int)>((nil, 0))
    /// The accounts pushes found, opened (`account(provider:lookupKey:)`); the pool's writer tells it of their changes.
    let openedAccounts = OpenedAccounts()
    /// How long each of the store's connections waits for a lock another one holds (a write under way, the last
    /// connection checkpointing as it closes) before failing with "database is locked".
    static let busyTimeout: TimeInterval = 5

    /// Opens (creating and migrating) `agent.sqlite` in `directory`, which is made 0700 and its files 0600. Secrets
    /// are sealed with `sealingKey`, or without one with the key file in `directory` (made on first use). A store
    /// sealed with another key is refused before anything is written.
    public init(directory: String, sealingKey: SealingKey? = nil) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        chmod(directory, 0o700)
        let path = directory + "/agent.sqlite"
        let key = try sealingKey ?? SealingKey.keyFile(in: directory)
        try Self.checkExistingStore(at: path, sealedWith: key)
        sealer = SecretSealer(key: try key.written())
        var configuration = Configuration()
        configuration.busyMode = .timeout(Self.busyTimeout)
        // Deleted and overwritten content is zeroed, not left in free pages: a secret replaced stays unreadable.
        configuration.prepareDatabase { try $0.execute(sql: "PRAGMA secure_delete = ON") }
        // Made 0600 before SQLite opens it, and SQLite gives the WAL and shared-memory files the database's mode. Not
        // through the umask, which is the whole process's: in a process that does other work meanwhile (the tests'),
        // two stores opening at once could leave it at 077 for good.
        let file = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        guard file >= 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [
                NSFilePathErrorKey: path, NSLocalizedDescriptionKey: "cannot create \(path): \(String(cString: strerror(errno)))",
            ])
        }
        close(file)
        pool = try DatabasePool(path: path, configuration: configuration)
        // GRDB's WAL default (NORMAL) survives a crashed process but not a power cut; a message the agent has
        // acknowledged to the relay must survive both, so every commit waits for the disk.
        try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
        try Schema.migrator.migrate(pool)
        try Self.prepareSealing(pool, sealer, path: path)
        attempts = try AttemptLedger(path: directory + "/ingest-attempts")
        var readOnly = Configuration()
        readOnly.readonly = true
        readOnly.busyMode = .timeout(Self.busyTimeout)
        pushReader = try DatabaseQueue(path: path, configuration: readOnly)
        pool.add(transactionObserver: openedAccounts)
        for suffix in ["", "-wal", "-shm"] { chmod(path + suffix, 0o600) }
    }

    /// A read of a few rows that every push makes, on the calling thread: the async `read` hands it to a reader's
    /// queue and back, two thread switches that cost more than such a read itself. Through a connection of its own,
    /// not the pool's: the pool's async reads keep their reader across suspensions, so a thread blocked here waiting
    /// for one of them could be the thread that read needs to give it back. A WAL reader does not wait for the
    /// writer, so the thread is held for the read alone.
    ///
    /// Each of these reads is a single statement, so it runs outside a transaction (GRDB's `unsafeRead`): SQLite reads
    /// one statement from one snapshot by itself, and GRDB's `read` would compile a BEGIN and a COMMIT around it on
    /// every call.
    func readOnThisThread<T>(_ value: (Database) throws -> T) throws -> T {
        try pushReader.unsafeRead(value)
    }

    // MARK: Device identity and relay cursor

    public func deviceIdentity() async throws -> DeviceIdentity? {
        let (known, saves) = knownDevice.withLock { $0 }
        if let known { return known }
        let identity = try await pool.read { db in
            try DeviceRecord.fetchOne(db).map {
                DeviceIdentity(relayURL: $0.relayUrl, deviceId: $0.deviceId, token: $0.token,
                               secret: try sealer.open($0.secret, context: SealedColumn.deviceSecret),
                               registeredAt: $0.registeredAt)
            }
        }
        knownDevice.withLock { if $0.saves == saves { $0.identity = .some(identity) } }
        return identity
    }

    /// Stores a new registration, resetting the cursor (a new device starts at seq 0).
    /// With `markAccountsForTokenUpdate`, every account is flagged so its provider is told of the new token.
    public func saveDeviceIdentity(_ identity: DeviceIdentity, markAccountsForTokenUpdate: Bool) async throws {
        // Before and after: a read between the two may have kept what the write replaces.
        let forget = { self.knownDevice.withLock { $0 = (nil, $0.saves + 1) } }
        forget()
        defer { forget() }
        try await pool.write { db in
            try DeviceRecord(relayUrl: identity.relayURL, deviceId: identity.deviceId, token: identity.token,
                             secret: try sealer.seal(identity.secret, context: SealedColumn.deviceSecret),
                             registeredAt: identity.registeredAt, cursor: 0).save(db)
            if markAccountsForTokenUpdate {
                // Accounts on FCM keep their token: it is not the relay's.
                try db.execute(sql: "UPDATE account SET needs_token_update = 1, token_update_problem = NULL WHERE fcm_app IS NULL")
            }
        }
    }

    public func cursor() async throws -> Int64 {
        try readOnThisThread { db in try Int64.fetchOne(db.cachedStatement(sql: "SELECT cursor FROM device")) ?? 0 }
    }

    /// Advances the cursor past a message that needed no processing (e.g. an empty or skipped batch).
    public func advanceCursor(to seq: Int64) async throws {
        try await pool.write { db in try Self.advanceCursor(to: seq, db) }
    }

    /// Starts the cursor over at 0, for a relay whose sequence numbers went backwards: everything it still holds is
    /// delivered again, and the processed ids absorb what was already committed.
    public func resetCursor() async throws {
        try await pool.write { db in try db.execute(sql: "UPDATE device SET cursor = 0") }
    }

    // MARK: Relay messages

    public func isProcessed(relayMessageId: String) async throws -> Bool {
        try await isProcessed(.relay(id: relayMessageId, seq: 0))
    }

    public func isProcessed(_ source: MessageSource) async throws -> Bool {
        try readOnThisThread { db in try Self.isProcessed(source, db) }
    }

    // Every push runs these, so they are compiled once per connection rather than on each call.
    private static func isProcessed(_ source: MessageSource, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM processed_message WHERE relay_message_id = ?)"),
                          arguments: [source.processedKey]) ?? false
    }

    private static func advanceCursor(to seq: Int64, _ db: Database) throws {
        try db.cachedStatement(sql: "UPDATE device SET cursor = MAX(cursor, ?)").execute(arguments: [seq])
    }

    /// Commits one relay message's effect, its processed id and the cursor in ONE transaction (docs/design.md §2 step 4).
    public func commitMessage(relayMessageId: String, seq: Int64, result: Result<PushEffect, PushRejection>,
                              provider: Provider?, now: Date = Date()) async throws -> MessageOutcome {
        try await commitMessage(source: .relay(id: relayMessageId, seq: seq), result: result, provider: provider, now: now)
    }

    /// Commits one message's effect and its processed key in ONE transaction; a relay message also advances the
    /// cursor there, a polled one leaves it alone. Either way a second delivery is absorbed: exactly-once effect.
    public func commitMessage(source: MessageSource, result: Result<PushEffect, PushRejection>,
                              provider: Provider?, budget: PushBudget = .unlimited,
                              now: Date = Date()) async throws -> MessageOutcome {
        try await commitMessages([MessageCommit(source: source, result: result, provider: provider)],
                                 budget: budget, now: now)[0]
    }

    /// Commits several messages, in order, as `commitMessage` would each, but in one transaction: a burst of pushes
    /// costs one disk flush, not one each. All or none are committed.
    public func commitMessages(_ messages: [MessageCommit], budget: PushBudget = .unlimited,
                               now: Date = Date()) async throws -> [MessageOutcome] {
        // A push's one commit, through a BEGIN and a COMMIT compiled once (GRDB's `write` compiles them on every call).
        // Every statement below lets a database error through, so none runs on its own after SQLite rolled the
        // transaction back by itself.
        let outcomes = try await pool.writeWithoutTransaction { db in
            try db.inCachedTransaction { try messages.map { try Self.commit($0, budget: budget, now: now, db) } }
        }
        attempts.forget(messages.map(\.source.processedKey))
        return outcomes
    }

    private static func commit(_ message: MessageCommit, budget: PushBudget, now: Date, _ db: Database) throws
        -> MessageOutcome {
        let (source, result, provider) = (message.source, message.result, message.provider)
        func advanceCursor() throws {
            guard case .relay(_, let seq) = source else { return }
            try Self.advanceCursor(to: seq, db)
        }
        if try isProcessed(source, db) {
            try advanceCursor()
            return .duplicate(existingApprovalId: nil)
        }
        let outcome: MessageOutcome = switch result {
        case .success(.approval(let draft)) where !draft.isStorable:
            .rejected(PushRejection(.malformed, "the push's times lie outside 1970–9999"))
        case .success(.approval(let draft)): try insert(draft, budget: budget, now: now, db)
        case .success(.requestUpdate(let update)): try apply(update, now: now, db)
        case .failure(let rejection): .rejected(rejection)
        }
        // A pushed replay (the same sign-in in another relay message) is worth seeing in history; a poll
        // returning a challenge the relay already brought is how polling works, not a replay.
        let refused: PushRejection? = switch (outcome, source) {
        case (.rejected(let rejection), _), (.autoDenied(_, let rejection), _): rejection
        case (.duplicate(let existing?), .relay):
            PushRejection(.duplicate, "a replay of the push behind approval \(existing): no second approval")
        default: nil
        }
        if let rejection = refused {
            var audit = AuditRecord(at: now, event: "push_rejected", subject: source.processedKey,
                                    detail: try ApprovalRecord.json(RejectionDetail(
                                        reason: rejection.reason, message: rejection.message, provider: provider)))
            try audit.insert(db)
        }
        try ProcessedMessageRecord(relayMessageId: source.processedKey, seq: source.seq, processedAt: now,
                                   outcome: outcome.label).insert(db)
        try advanceCursor()
        return outcome
    }

    private static func insert(_ draft: ApprovalDraft, budget: PushBudget, now: Date, _ db: Database) throws
        -> MessageOutcome {
        if let existing = try String.fetchOne(
            db.cachedStatement(sql: "SELECT id FROM approval WHERE provider = ? AND dedupe_key = ?"),
            arguments: [draft.provider.rawValue, draft.dedupeKey]) {
            return .duplicate(existingApprovalId: existing)
        }
        var record = try ApprovalRecord(id: Identifier.make(prefix: "apr"), draft: draft, receivedAt: now)
        guard let (denial, rejection) = try automaticDenial(of: draft, budget: budget, now: now, db) else {
            try record.insert(db)
            return .created(try record.approval(of: draft))
        }
        try record.denyAutomatically(denial)
        try record.insert(db)
        let message = rejection.message + " (approval \(record.id))"
        return .autoDenied(StoredApproval(approval: try record.approval(of: draft), answerContext: record.answerContext),
                           PushRejection(rejection.reason, message))
    }

    // MARK: Approvals

    public func approvals(state: ApprovalState?) async throws -> [Approval] {
        try await pool.read { db in
            var request = ApprovalRecord.order(Column("requested_at").desc)
            if let state { request = request.filter(Column("state") == state.rawValue) }
            return try request.fetchAll(db).map { try $0.approval() }
        }
    }

    public func approval(matching idOrPrefix: String) async throws -> StoredApproval {
        try await pool.read { db in
            let record = try Self.resolve(ApprovalRecord.self, idOrPrefix, what: "approval", db)
            return StoredApproval(approval: try record.approval(), answerContext: record.answerContext)
        }
    }

    /// Moves an approval along the state machine; a transition it does not allow is a conflict.
    @discardableResult
    public func transition(_ id: String, to next: ApprovalState, resolution: Resolution? = nil, error: String? = nil,
                           now: Date = Date()) async throws -> Approval {
        try await pool.write { db in
            guard var record = try ApprovalRecord.fetchOne(db, key: id) else { throw StoreError.notFound("no approval \(id)") }
            let current = try record.approval()
            guard current.state.canTransition(to: next) else {
                throw StoreError.conflict("approval \(id) is \(current.state.rawValue); it cannot become \(next.rawValue)")
            }
            record.state = next.rawValue
            if let resolution { record.resolution = try ApprovalRecord.json(resolution) }
            if let error { record.error = error }
            if next.isFinal { record.resolvedAt = now }
            try record.update(db)
            return try record.approval()
        }
    }

    /// Pending approvals past their expiry become `expired`.
    public func expireDue(now: Date = Date()) async throws -> [Approval] {
        try await pool.write { db in
            let due = try ApprovalRecord.filter(Column("state") == "pending" && Column("expires_at") <= now).fetchAll(db)
            return try due.map { record in
                var record = record
                record.state = ApprovalState.expired.rawValue
                record.resolvedAt = now
                try record.update(db)
                return try record.approval()
            }
        }
    }

    /// Approvals whose answer was started but not finished (the daemon stopped mid-answer): resumed at start.
    public func unfinishedAnswers() async throws -> [StoredApproval] {
        try await pool.read { db in
            try ApprovalRecord.filter(["approving", "denying"].contains(Column("state"))).fetchAll(db).map {
                StoredApproval(approval: try $0.approval(), answerContext: $0.answerContext)
            }
        }
    }

    // MARK: Audit and history

    public func audit(event: String, peer: Peer?, subject: String?, detail: String?, now: Date = Date()) async throws {
        try await pool.write { db in
            var record = AuditRecord(at: now, event: event, peerUid: peer.map { Int64($0.uid) },
                                     peerPid: peer.map { Int64($0.pid) }, peerCommand: peer?.command,
                                     subject: subject, detail: detail)
            try record.insert(db)
        }
    }

    public func auditEntries(event: String? = nil, limit: Int = 100) async throws -> [AuditEntry] {
        try await pool.read { db in
            var request = AuditRecord.order(Column("id").desc).limit(limit)
            if let event { request = request.filter(Column("event") == event) }
            return try request.fetchAll(db).map {
                AuditEntry(at: $0.at, event: $0.event, peerUid: $0.peerUid.map { UInt32($0) },
                           peerPid: $0.peerPid.map { Int32($0) }, peerCommand: $0.peerCommand,
                           subject: $0.subject, detail: $0.detail)
            }
        }
    }

    public func counts() async throws -> (accounts: Int, pending: Int, rejected: Int) {
        try await pool.read { db in
            (try AccountRecord.fetchCount(db),
             try ApprovalRecord.filter(Column("state") == "pending").fetchCount(db),
             try AuditRecord.filter(Column("event") == "push_rejected").fetchCount(db))
        }
    }

    /// Resolved approvals (by resolution time) for history.
    public func resolvedApprovals(limit: Int) async throws -> [Approval] {
        try await pool.read { db in
            // Pushes denied unseen for the account's budget or mute are in history as rejected pushes already.
            try ApprovalRecord.filter(Column("resolved_at") != nil)
                .filter(![AutomaticDenial.rateLimited.rawValue, AutomaticDenial.muted.rawValue].contains(Column("automatic")) || Column("automatic") == nil)
                .order(Column("resolved_at").desc).limit(limit)
                .fetchAll(db).map { try $0.approval() }
        }
    }

    static func resolve<R: FetchableRecord & TableRecord>(_ type: R.Type, _ idOrPrefix: String, what: String,
                                                                  _ db: Database) throws -> R {
        if let exact = try R.fetchOne(db, key: idOrPrefix) { return exact }
        let escaped = idOrPrefix.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
        let matches = try R.fetchAll(db, sql: "SELECT * FROM \(R.databaseTableName) WHERE id LIKE ? ESCAPE '\\' LIMIT 2",
                                     arguments: [escaped + "%"])
        switch matches.count {
        case 0: throw StoreError.notFound("no \(what) matches '\(idOrPrefix)'")
        case 1: return matches[0]
        default: throw StoreError.ambiguous("'\(idOrPrefix)' matches more than one \(what); give more of the id")
        }
    }
}

public struct AuditEntry: Sendable {
    public var at: Date
    public var event: String
    public var peerUid: UInt32?
    public var peerPid: Int32?
    public var peerCommand: String?
    public var subject: String?
    public var detail: String?
}

/// The audit detail of a rejected push, also read back for history.
public struct RejectionDetail: Codable, Sendable {
    public var reason: PushRejection.Reason
    public var message: String
    public var provider: Provider?
}

extension MessageOutcome {
    var label: String {
        switch self {
        case .created: "created"
        case .duplicate: "duplicate"
        case .requestUpdated: "request_updated"
        case .rejected(let r): "rejected:\(r.reason.rawValue)"
        case .autoDenied(_, let r): "auto_denied:\(r.reason.rawValue)"
        }
    }
}
