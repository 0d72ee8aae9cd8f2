import Foundation
import PostgresNIO

/// Access tokens as `RelayStore` keeps them (digests, one row per project), shared by every instance: a token
/// issued by one is accepted by all.
extension PostgresRelayStore {
    func storeAccessToken(digest: [UInt8], grant: AssertionVerifier.Grant, issuedAt: Int64, expiresAt: Int64) async throws {
        try await transaction("storing an access token") { [logger] connection in
            _ = try await connection.query("DELETE FROM access_token WHERE expires_at <= \(issuedAt)", logger: logger).collect()
            for project in grant.projects {
                _ = try await connection.query("""
                    INSERT INTO access_token (token_hash, project, service_account, key_id, issued_at, expires_at)
                    VALUES (\(Data(digest)), \(project), \(grant.serviceAccount), \(grant.keyID), \(issuedAt), \(expiresAt))
                    """, logger: logger).collect()
            }
        }
    }

    func accessTokenProjects(digest: [UInt8], now: Int64) async throws -> [String] {
        try await rows("looking up an access token", "SELECT project FROM access_token WHERE token_hash = \(Data(digest)) AND expires_at > \(now)")
            .map { try $0.decode(String.self) }
    }

    /// Instances share the tokens, so each must register the same keys: one started without a key revokes the
    /// tokens issued under it for all.
    func revokeAccessTokens(except registered: [(keyID: String, project: String)]) async throws -> Int {
        let keyIDs = registered.map(\.keyID), projects = registered.map(\.project)
        return try await transaction("revoking access tokens of keys no longer registered") { [logger] connection in
            try await connection.count("""
                DELETE FROM access_token t WHERE NOT EXISTS (
                    SELECT 1 FROM unnest(\(keyIDs)::text[], \(projects)::text[]) AS r (key_id, project)
                    WHERE r.key_id = t.key_id AND r.project = t.project)
                RETURNING 1
                """, logger: logger)
        }
    }
}
