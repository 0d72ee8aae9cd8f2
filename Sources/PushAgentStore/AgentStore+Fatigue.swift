import Foundation
import GRDB
import PushAgentCore

/// The store's side of the push bombing defences: muted accounts, per-account push budgets, and one visible
/// approval per identical request.
extension AgentStore {
    /// Mutes the account until `until`, or unmutes it (nil).
    public func setMute(accountMatching idOrPrefix: String, until: Date?, reason: String?) async throws -> Account {
        try await pool.write { db in
            var record = try Self.resolve(AccountRecord.self, idOrPrefix, what: "account", db)
            record.mutedUntil = until
            record.muteReason = until == nil ? nil : reason
            try record.update(db)
            return try record.account()
        }
    }

    /// The pending approvals that look like `approval` (ApprovalDraft.similarityKey) and came before it start being
    /// denied (`denying`, automatic `superseded`): their answers are the caller's to send.
    public func supersedeSimilar(to approval: Approval) async throws -> [StoredApproval] {
        // Every approval a push creates comes here, and most have no look-alike: a read on this thread says so without
        // a write transaction and the two thread switches to the writer and back. Older ones only ever leave the
        // pending state, so none found now means none to deny; the write looks again for the ones it denies.
        guard try readOnThisThread({ db in
            try Bool.fetchOne(db.cachedStatement(sql: Self.anyOlderLookAlikeSQL), arguments: [approval.id]) ?? false
        }) else { return [] }
        return try await pool.write { db in
            try Self.olderLookAlikes(of: approval.id, db).map { record in
                var record = record
                try record.denyAutomatically(.superseded)
                try record.update(db)
                return StoredApproval(approval: try record.approval(), answerContext: record.answerContext)
            }
        }
    }

    private static func olderLookAlikes(of id: String, _ db: Database) throws -> [ApprovalRecord] {
        try ApprovalRecord.fetchAll(db.cachedStatement(sql: lookAlikesSQL), arguments: [id])
    }

    /// The pending approvals older than approval `id` that look like it, while it is pending itself: a batch commits
    /// all its look-alikes before the first is handled, so only the ones stored before it (rowid order is arrival
    /// order) give way, and only to one still pending. No look has no look-alike (NULL equals nothing). The state is
    /// written out, not bound, so that SQLite may read the partial index `approval_pending_look_alike`.
    static let lookAlikesSQL = """
        SELECT older.* FROM approval AS newest JOIN approval AS older
            ON older.account_id = newest.account_id AND older.similarity_key = newest.similarity_key
                AND older.state = 'pending' AND older.rowid < newest.rowid
            WHERE newest.id = ? AND newest.state = 'pending'
        """

    /// Whether `olderLookAlikes` would find any, without decoding them.
    static let anyOlderLookAlikeSQL = "SELECT EXISTS (\(lookAlikesSQL))"

    /// Why a verified push for the draft's account is denied unseen, or nil to show it: the account is muted, or
    /// its pushes within the budget's window already reached the limit (pushes denied for that do not count, so
    /// the user's own sign-in gets through once a burst has passed the window).
    static func automaticDenial(of draft: ApprovalDraft, budget: PushBudget, now: Date, _ db: Database) throws
        -> (AutomaticDenial, PushRejection)? {
        let provider = draft.provider.displayName
        // Every push asks both: compiled once per connection.
        if let until = try Date.fetchOne(db.cachedStatement(sql: "SELECT muted_until FROM account WHERE id = ?"),
                                         arguments: [draft.accountId]), until > now {
            return (.muted, PushRejection(.muted, "account \(draft.accountId) is muted until "
                + "\(until.formatted(.iso8601)): denied at \(provider), unseen"))
        }
        guard budget.limit > 0 else { return nil }
        let admitted = try Int.fetchOne(db.cachedStatement(sql: """
            SELECT COUNT(*) FROM approval WHERE account_id = ? AND received_at > ?
                AND (automatic IS NULL OR automatic = ?)
            """), arguments: [draft.accountId, now.addingTimeInterval(-budget.window), AutomaticDenial.superseded.rawValue]) ?? 0
        guard !budget.admits(admittedWithinWindow: admitted) else { return nil }
        return (.rateLimited, PushRejection(.rateLimited, "account \(draft.accountId) had \(admitted) pushes in the last "
            + "\(Int(budget.window)) s, its limit: denied at \(provider), unseen"))
    }
}

extension ApprovalRecord {
    /// Starts denying it on the user's behalf (`denying`, nobody's uid): as fraud for a muted account, else plainly.
    mutating func denyAutomatically(_ denial: AutomaticDenial) throws {
        state = ApprovalState.denying.rawValue
        automatic = denial.rawValue
        resolution = try Self.json(Resolution(byUid: nil, reason: denial == .muted ? .fraud : .ignore, automatic: denial))
    }
}
