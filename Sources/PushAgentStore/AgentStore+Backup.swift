import Foundation
import GRDB
import PushAgentCore

/// What restoring one backed-up account did.
public enum AccountRestoreOutcome: Sendable, Equatable {
    case added(Account)
    /// An account with the same provider and lookup key (or the same id) is here already; it was left as it is.
    case alreadyPresent(existingId: String)
}

extension AgentStore {
    /// Every account as a backup holds it, read in one transaction (`boundToMachine` is the provider's to say).
    public func accountsForBackup() async throws -> [BackupAccount] {
        try await pool.read { db in
            try AccountRecord.order(Column("created_at")).fetchAll(db).map { record in
                let stored = try stored(record)
                let account = stored.account
                return BackupAccount(
                    id: account.id, provider: account.provider, issuer: account.issuer, name: account.name,
                    createdAt: account.createdAt, lookupKey: record.lookupKey, credentials: stored.credentials,
                    totp: stored.totp, boundToMachine: false)
            }
        }
    }

    /// Adds backed-up accounts in ONE transaction: all are written or, on any error, none. Accounts already here are
    /// skipped, so restoring the same backup twice changes nothing the second time. Every added account is flagged
    /// for a push token update: its provider still pushes to the machine the backup came from.
    public func restoreAccounts(_ accounts: [BackupAccount]) async throws -> [AccountRestoreOutcome] {
        try await pool.write { db in
            try accounts.map { backedUp in
                let existing = try AccountRecord.filter(
                    (Column("provider") == backedUp.provider.rawValue && Column("lookup_key") == backedUp.lookupKey)
                        || Column("id") == backedUp.id).fetchOne(db)
                if let existing { return .alreadyPresent(existingId: existing.id) }
                let record = AccountRecord(
                    id: backedUp.id, provider: backedUp.provider.rawValue, issuer: backedUp.issuer, name: backedUp.name,
                    createdAt: backedUp.createdAt, lookupKey: backedUp.lookupKey, credentials: backedUp.credentials,
                    totp: try backedUp.totp.map { try JSONEncoder().encode($0) }, needsTokenUpdate: true,
                    tokenUpdateProblem: nil)
                try record.insert(sealedBy: sealer, db)
                return .added(try record.account())
            }
        }
    }
}
