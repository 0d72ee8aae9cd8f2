import Foundation
import GRDB

/// Access tokens from `POST /token`, kept as SHA-256 digests (a stolen database holds no usable token) with
/// their projects and expiry, so that they outlive a restart as Google's do.
extension SQLiteRelayStore {
    static func createAccessTokenTable(_ db: Database) throws {
        // One row per project the token may send to: a key registered for several projects grants them all.
        try db.create(table: "access_token") { t in
            t.column("token_hash", .blob).notNull()
            t.column("project", .text).notNull()
            t.column("service_account", .text).notNull()
            t.column("key_id", .text).notNull()
            t.column("issued_at", .integer).notNull()
            t.column("expires_at", .integer).notNull()
            t.primaryKey(["token_hash", "project"])
        }
        try db.create(index: "access_token_by_expiry", on: "access_token", columns: ["expires_at"])
    }

    func storeAccessToken(digest: [UInt8], grant: AssertionVerifier.Grant, issuedAt: Int64, expiresAt: Int64) async throws {
        try await pool.write { db in
            try Self.deleteExpiredAccessTokens(db, now: issuedAt)
            for project in grant.projects {
                try db.execute(
                    sql: """
                        INSERT INTO access_token (token_hash, project, service_account, key_id, issued_at, expires_at)
                        VALUES (?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [Data(digest), project, grant.serviceAccount, grant.keyID, issuedAt, expiresAt])
            }
        }
    }

    func accessTokenProjects(digest: [UInt8], now: Int64) async throws -> [String] {
        try await pool.read { db in
            try String.fetchAll(
                db, sql: "SELECT project FROM access_token WHERE token_hash = ? AND expires_at > ?",
                arguments: [Data(digest), now])
        }
    }

    func revokeAccessTokens(except registered: [(keyID: String, project: String)]) async throws -> Int {
        try await pool.write { db in
            try db.execute(sql: "CREATE TEMP TABLE registered_key (key_id TEXT NOT NULL, project TEXT NOT NULL)")
            defer { try? db.execute(sql: "DROP TABLE temp.registered_key") }
            for key in registered {
                try db.execute(sql: "INSERT INTO registered_key VALUES (?, ?)", arguments: [key.keyID, key.project])
            }
            try db.execute(sql: """
                DELETE FROM access_token WHERE NOT EXISTS (SELECT 1 FROM registered_key r
                    WHERE r.key_id = access_token.key_id AND r.project = access_token.project)
                """)
            return db.changesCount
        }
    }

    static func deleteExpiredAccessTokens(_ db: Database, now: Int64) throws {
        try db.execute(sql: "DELETE FROM access_token WHERE expires_at <= ?", arguments: [now])
    }
}
