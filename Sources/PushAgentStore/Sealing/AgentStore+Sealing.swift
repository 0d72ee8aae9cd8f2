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
                guard keyID == sealer.key.id else {
                    throw SealingError("the secrets in \(path) were sealed with another key than this \(sealer.key.source.rawValue) (\(sealer.key.id.prefix(8)), sealed with \(keyID.prefix(8))): the store was copied from another machine or its key was lost. Put the original key back, or move the store aside and restore a backup (pushctl restore)")
                }
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
