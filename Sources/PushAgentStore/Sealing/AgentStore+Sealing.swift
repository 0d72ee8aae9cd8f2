import Foundation
import GRDB

extension AgentStore {
    /// How the store's secrets are sealed (`pushctl status`).
    public var secretsSealedBy: SealingKey.Source { sealer.key.source }

    /// At open: a store sealed under another key is refused before anything is read; a store from before sealing
    /// (or a new one) has its secrets sealed now, in one transaction, and the clear pages are then dropped from the
    /// file and the WAL, so no secret stays readable in them.
    static func prepareSealing(_ pool: DatabasePool, _ sealer: SecretSealer, path: String) throws {
        let sealedNow = try pool.write { db -> Bool in
            if let keyID = try String.fetchOne(db, sql: "SELECT key_id FROM sealing") {
                try checkSealed(with: sealer.key, found: keyID, path: path)
                return false
            }
            try sealClearSecrets(db, sealer)
            try db.execute(sql: "INSERT INTO sealing (singleton, key_id, sealed_at) VALUES (1, ?, ?)",
                           arguments: [sealer.key.id, Date()])
            return true
        }
        if sealedNow {
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "VACUUM")
                try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            }
        }
    }

    /// Before anything is written (a new key file, a migration): a store already sealed under another key than
    /// `key` is refused, and left as it was.
    static func checkExistingStore(at path: String, sealedWith key: SealingKey) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(busyTimeout)
        let keyID = try DatabaseQueue(path: path, configuration: configuration).read { db in
            try db.tableExists("sealing") ? String.fetchOne(db, sql: "SELECT key_id FROM sealing") : nil
        }
        if let keyID { try checkSealed(with: key, found: keyID, path: path) }
    }

    private static func checkSealed(with key: SealingKey, found keyID: String, path: String) throws {
        guard keyID != key.id else { return }
        let store = "the secrets in \(path) were sealed with"
        let why = "the store was copied from another machine or its key was lost. Put the original key back, or move the store aside and restore a backup (pushctl restore)"
        guard let keyFile = key.unwrittenKeyFile else {
            throw SealingError("\(store) another key than this \(key.source.rawValue) (\(key.id.prefix(8)), sealed with \(keyID.prefix(8))): \(why)")
        }
        throw SealingError("\(store) a key that is not here (no \(SealingKey.keyFileName): \(keyFile) is missing; sealed with \(keyID.prefix(8))): \(why); nothing was written")
    }

    private static func sealClearSecrets(_ db: Database, _ sealer: SecretSealer) throws {
        if let secret = try String.fetchOne(db, sql: "SELECT secret FROM device") {
            try db.execute(sql: "UPDATE device SET secret = ?",
                           arguments: [try sealer.seal(secret, context: SealedColumn.deviceSecret)])
        }
        for record in try AccountRecord.fetchAll(db) { try record.sealed(sealer).update(db) }
        if let key = try Data.fetchOne(db, sql: "SELECT private_key FROM signing_key") {
            try db.execute(sql: "UPDATE signing_key SET private_key = ?",
                           arguments: [try sealer.seal(key, context: SealedColumn.signingKey)])
        }
    }
}

extension AccountRecord {
    func sealed(_ sealer: SecretSealer) throws -> AccountRecord {
        var record = self
        record.credentials = try sealer.seal(credentials, context: SealedColumn.credentials(account: id))
        record.totp = try totp.map { try sealer.seal($0, context: SealedColumn.totp(account: id)) }
        return record
    }

    func opened(_ sealer: SecretSealer) throws -> AccountRecord {
        var record = self
        record.credentials = try sealer.open(credentials, context: SealedColumn.credentials(account: id))
        record.totp = try totp.map { try sealer.open($0, context: SealedColumn.totp(account: id)) }
        return record
    }
}
