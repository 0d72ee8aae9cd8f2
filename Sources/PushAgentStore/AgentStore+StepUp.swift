import Foundation
import GRDB
import PushAgentCore

extension AgentStore {
    /// The device's receipt-signing key, made on first use and kept (0600 database) from then on.
    public func deviceSigningKey(now: Date = Date()) async throws -> DeviceSigningKey {
        try await pool.write { db in
            if let stored = try SigningKeyRecord.fetchOne(db) {
                return try DeviceSigningKey(rawRepresentation: try sealer.open(stored.privateKey, context: SealedColumn.signingKey))
            }
            let key = DeviceSigningKey.generate()
            try SigningKeyRecord(kid: key.publicJWK.kid, privateKey: try sealer.seal(key.rawRepresentation, context: SealedColumn.signingKey),
                                 createdAt: now).insert(db)
            return key
        }
    }

    /// Adds an approval asked for on this machine (a local step-up). `admit` sees the local approvals still pending,
    /// in the same transaction, and may refuse by throwing.
    public func addLocalApproval(_ draft: ApprovalDraft,
                                 admit: @Sendable ([StoredApproval]) throws -> Void) async throws -> Approval {
        try await pool.write { db in
            let pending = try ApprovalRecord
                .filter(Column("provider") == Provider.local.rawValue && Column("state") == ApprovalState.pending.rawValue)
                .fetchAll(db).map { StoredApproval(approval: try $0.approval(), answerContext: $0.answerContext) }
            try admit(pending)
            let record = try ApprovalRecord(id: Identifier.make(prefix: "apr"), draft: draft)
            try record.insert(db)
            return try record.approval()
        }
    }
}

extension AgentStore {
    /// A local approval nobody waits for any more ends as failed with `reason`; one already answered or expired is
    /// a conflict (its outcome stands).
    public func withdrawLocalApproval(_ id: String, reason: String, now: Date = Date()) async throws -> Approval {
        try await pool.write { db in
            guard var record = try ApprovalRecord.fetchOne(db, key: id), record.provider == Provider.local.rawValue else {
                throw StoreError.notFound("no local approval \(id)")
            }
            guard record.state == ApprovalState.pending.rawValue else {
                throw StoreError.conflict("step-up \(id) is already \(record.state); it can no longer be withdrawn")
            }
            guard record.expiresAt > now else {
                throw StoreError.conflict("step-up \(id) expired at \(record.expiresAt.formatted(.iso8601)); it can no longer be withdrawn")
            }
            record.state = ApprovalState.failed.rawValue
            record.error = reason
            record.resolvedAt = now
            try record.update(db)
            return try record.approval()
        }
    }
}

struct SigningKeyRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "signing_key"
    var singleton = 1
    var kid: String
    var privateKey: Data
    var createdAt: Date

    enum CodingKeys: String, CodingKey { case singleton, kid, privateKey = "private_key", createdAt = "created_at" }
}
