import Foundation
import GRDB
import PushAgentCore

/// Accounts: enrolled, looked up by a push's key, told a new push token, removed.
extension AgentStore {
    public func addAccount(_ account: Account, lookupKey: String, credentials: Data, totp: TOTPParameters?) async throws {
        try await pool.write { db in
            if try AccountRecord.filter(Column("provider") == account.provider.rawValue && Column("lookup_key") == lookupKey)
                .fetchCount(db) > 0 {
                throw StoreError.duplicateAccount("this \(account.provider.rawValue) account is already enrolled")
            }
            try AccountRecord(id: account.id, provider: account.provider.rawValue, issuer: account.issuer,
                              name: account.name, createdAt: account.createdAt, lookupKey: lookupKey,
                              credentials: credentials, totp: try totp.map { try JSONEncoder().encode($0) },
                              needsTokenUpdate: account.needsTokenUpdate,
                              tokenUpdateProblem: account.tokenUpdateProblem, fcmApp: account.fcmApp)
                .insert(sealedBy: sealer, db)
        }
    }

    public func accounts() async throws -> [Account] {
        try await pool.read { db in try AccountRecord.order(Column("created_at")).fetchAll(db).map { try $0.account() } }
    }

    /// An account by id or unique id prefix.
    public func account(matching idOrPrefix: String) async throws -> StoredAccount {
        try await pool.read { db in try self.stored(try Self.resolve(AccountRecord.self, idOrPrefix, what: "account", db)) }
    }

    public func account(provider: Provider, lookupKey: String) async throws -> StoredAccount? {
        try openedAccounts.account(.init(provider: provider, lookupKey: lookupKey)) {
            try readOnThisThread { db in
                // Every push looks its account up: compiled once per connection.
                try AccountRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM account WHERE provider = ? AND lookup_key = ?"),
                                           arguments: [provider.rawValue, lookupKey]).map(stored)
            }
        }
    }

    /// The accounts whose provider has not heard of the device's current push token.
    public func accountsNeedingTokenUpdate() async throws -> [StoredAccount] {
        try await pool.read { db in
            try AccountRecord.filter(Column("needs_token_update") == true).order(Column("created_at")).fetchAll(db)
                .map(stored)
        }
    }

    /// The provider now knows `sentToken`: store what changed in the credentials and clear `needs_token_update`,
    /// unless the device registered again meanwhile (then false: the provider must be told the newer token).
    @discardableResult
    public func finishTokenUpdate(accountId: String, credentials: Data, sentToken: String) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: """
                UPDATE account SET credentials = ?, needs_token_update = 0, token_update_problem = NULL
                WHERE id = ? AND ? = CASE WHEN fcm_app IS NULL THEN (SELECT token FROM device)
                    ELSE (SELECT token FROM fcm_registration WHERE app = account.fcm_app) END
                """, arguments: [try sealer.seal(credentials, context: SealedColumn.credentials(account: accountId)),
                                 accountId, sentToken])
            return db.changesCount > 0
        }
    }

    /// Why the account's provider has not been told the new push token (shown in `pushctl accounts`).
    public func recordTokenUpdateProblem(accountId: String, _ problem: String) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE account SET token_update_problem = ? WHERE id = ? AND needs_token_update = 1",
                           arguments: [problem, accountId])
        }
    }

    /// Every account of one provider, with its credentials.
    public func accounts(provider: Provider) async throws -> [StoredAccount] {
        try await pool.read { db in
            try AccountRecord.filter(Column("provider") == provider.rawValue).order(Column("created_at")).fetchAll(db)
                .map(stored)
        }
    }

    /// Replaces an account's provider credentials (state the provider keeps with them: PlusAuth's binding, a Hyphen
    /// sign-in's session).
    public func updateCredentials(accountId: String, _ credentials: Data) async throws {
        try await pool.write { db in
            guard var record = try AccountRecord.fetchOne(db, key: accountId) else {
                throw StoreError.notFound("no account \(accountId)")
            }
            record.credentials = try sealer.seal(credentials, context: SealedColumn.credentials(account: accountId))
            try record.update(db)
        }
    }

    /// Removes an account; its approvals still waiting for an answer end as failed.
    public func removeAccount(matching idOrPrefix: String, now: Date = Date()) async throws -> (Account, [Approval]) {
        try await pool.write { db in
            let record = try Self.resolve(AccountRecord.self, idOrPrefix, what: "account", db)
            try record.delete(db)
            var ended: [Approval] = []
            for var approval in try ApprovalRecord.filter(Column("account_id") == record.id && Column("state") == "pending").fetchAll(db) {
                approval.state = ApprovalState.failed.rawValue
                approval.error = "the account was removed"
                approval.resolvedAt = now
                try approval.update(db)
                ended.append(try approval.approval())
            }
            return (try record.account(), ended)
        }
    }

    func stored(_ sealed: AccountRecord) throws -> StoredAccount {
        let record = try sealed.opened(sealer)
        return StoredAccount(account: try record.account(), credentials: record.credentials,
                             totp: try record.totp.map { try JSONDecoder().decode(TOTPParameters.self, from: $0) })
    }
}

extension AccountRecord {
    /// Sealed and inserted, unless it holds a time the store could not read back (its text dates end at year 9999):
    /// such a row would make every listing of accounts fail, after a restart too.
    func insert(sealedBy sealer: SecretSealer, _ db: Database) throws {
        guard WireTime.isRepresentable(createdAt) else {
            throw StoreError.unstorable("account \(id) has a creation time (\(createdAt.timeIntervalSince1970) seconds since 1970) outside 1970–9999")
        }
        try sealed(sealer).insert(db)
    }
}
