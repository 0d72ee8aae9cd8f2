import Foundation
import GRDB
import PushAgentCore

/// The FCM receiver's registrations, one per Firebase app: the keys, tokens and device identity sealed together.
extension AgentStore {
    public func fcmRegistration(app name: String) async throws -> FCMRegistration? {
        try await pool.read { db in
            guard let sealed = try Data.fetchOne(db, sql: "SELECT sealed FROM fcm_registration WHERE app = ?",
                                                 arguments: [name]) else { return nil }
            return try JSONDecoder().decode(FCMRegistration.self,
                                            from: try sealer.open(sealed, context: SealedColumn.fcmRegistration(app: name)))
        }
    }

    /// The token `account`'s provider pushes to: its FCM registration's when it is on FCM, else the relay's; nil
    /// until that registration exists.
    public func pushToken(for account: Account) async throws -> String? {
        if let app = account.fcmApp { return try await fcmRegistration(app: app)?.token }
        return try await deviceIdentity()?.token
    }

    /// Saves the app's registration; a new token for an app that had another (its values changed, Google forgot
    /// it) flags the app's accounts, whose providers must be told it.
    public func saveFCMRegistration(_ registration: FCMRegistration) async throws {
        let name = registration.app.name
        let sealed = try sealer.seal(try JSONEncoder().encode(registration), context: SealedColumn.fcmRegistration(app: name))
        try await pool.write { db in
            if let earlier = try String.fetchOne(db, sql: "SELECT token FROM fcm_registration WHERE app = ?", arguments: [name]),
               earlier != registration.token {
                try db.execute(sql: "UPDATE account SET needs_token_update = 1, token_update_problem = NULL WHERE fcm_app = ?",
                               arguments: [name])
            }
            try db.execute(sql: """
                INSERT INTO fcm_registration (app, sealed, token, registered_at) VALUES (?, ?, ?, ?)
                ON CONFLICT(app) DO UPDATE SET sealed = excluded.sealed, token = excluded.token,
                    registered_at = excluded.registered_at
                """, arguments: [name, sealed, registration.token, registration.registeredAt])
        }
    }

    /// Forgets the registration (Google forgot it): the accounts on it need their provider told the next token, which
    /// the registration that replaces it brings.
    public func deleteFCMRegistration(app name: String) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM fcm_registration WHERE app = ?", arguments: [name])
            try db.execute(sql: "UPDATE account SET needs_token_update = 1, token_update_problem = NULL WHERE fcm_app = ?",
                           arguments: [name])
        }
    }
}
