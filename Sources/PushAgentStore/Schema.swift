import GRDB

/// The agent's schema, migrated in code. Append migrations; never edit a shipped one.
enum Schema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "device") { t in
                t.primaryKey("singleton", .integer).check { $0 == 1 }
                t.column("relay_url", .text).notNull()
                t.column("device_id", .text).notNull()
                t.column("token", .text).notNull()
                t.column("secret", .text).notNull()
                t.column("registered_at", .datetime).notNull()
                t.column("cursor", .integer).notNull().defaults(to: 0)
            }
            try db.create(table: "account") { t in
                t.primaryKey("id", .text)
                t.column("provider", .text).notNull()
                t.column("issuer", .text).notNull()
                t.column("name", .text).notNull()
                t.column("created_at", .datetime).notNull()
                t.column("lookup_key", .text).notNull()
                t.column("credentials", .blob).notNull()
                t.column("totp", .blob)
                t.column("needs_token_update", .boolean).notNull().defaults(to: false)
                t.uniqueKey(["provider", "lookup_key"])
            }
            try db.create(table: "approval") { t in
                t.primaryKey("id", .text)
                t.column("provider", .text).notNull()
                t.column("account_id", .text).notNull()
                t.column("kind", .text).notNull()
                t.column("numbers", .text)
                t.column("title", .text).notNull()
                t.column("message", .text).notNull()
                t.column("context", .text).notNull()
                t.column("state", .text).notNull().indexed()
                t.column("requested_at", .datetime).notNull()
                t.column("expires_at", .datetime).notNull()
                t.column("resolved_at", .datetime)
                t.column("resolution", .text)
                t.column("error", .text)
                t.column("dedupe_key", .text).notNull()
                t.column("answer_context", .blob).notNull()
                t.uniqueKey(["provider", "dedupe_key"])
            }
            // Relay message ids already committed: redelivery after a crash is absorbed here (docs/design.md §2 step 4).
            try db.create(table: "processed_message") { t in
                t.primaryKey("relay_message_id", .text)
                t.column("seq", .integer).notNull()
                t.column("processed_at", .datetime).notNull()
                t.column("outcome", .text).notNull()
            }
            try db.create(table: "audit") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("at", .datetime).notNull().indexed()
                t.column("event", .text).notNull()
                t.column("peer_uid", .integer)
                t.column("peer_pid", .integer)
                t.column("peer_command", .text)
                t.column("subject", .text)
                t.column("detail", .text)
            }
        }
        // The device key that signs local step-up receipts (docs/stepup.md); made once, kept with the other secrets.
        migrator.registerMigration("stepup-v1") { db in
            try db.create(table: "signing_key") { t in
                t.primaryKey("singleton", .integer).check { $0 == 1 }
                t.column("kid", .text).notNull()
                t.column("private_key", .blob).notNull()
                t.column("created_at", .datetime).notNull()
            }
        }
        // Requests this device made and another device answers (Hyphen's sign-in), moved by status pushes.
        migrator.registerMigration("hyphen-v1") { db in
            try db.create(table: "two_factor_request") { t in
                t.primaryKey("id", .text)
                t.column("provider", .text).notNull()
                t.column("account_id", .text).notNull()
                t.column("remote_id", .text).notNull()
                t.column("title", .text).notNull()
                t.column("message", .text).notNull()
                t.column("state", .text).notNull().indexed()
                t.column("created_at", .datetime).notNull()
                t.column("expires_at", .datetime).notNull()
                t.column("updated_at", .datetime).notNull()
                t.column("tx_id", .text)
                t.column("error", .text)
                // What the provider's module needs to finish it (Hyphen: the sign-in's ephemeral token).
                t.column("context", .blob).notNull()
                t.uniqueKey(["provider", "remote_id"])
            }
        }
        migrator.registerMigration("token-update-v1") { db in
            try db.alter(table: "account") { t in t.add(column: "token_update_problem", .text) }
        }
        // Messages taken up but not yet committed, counted so a push that crashes the daemon is dropped, not retried
        // for ever (AgentStore+Attempts).
        migrator.registerMigration("ingest-attempt-v1") { db in
            try db.create(table: "ingest_attempt") { t in
                t.primaryKey("key", .text)
                t.column("attempts", .integer).notNull()
                t.column("first_at", .datetime).notNull()
                t.column("last_error", .text)
            }
        }
        // Before times from the wire were bounded, a far-future expiry could be stored as a year past 9999, which
        // no read can parse: every listing failed. Such rows end now, readable again.
        migrator.registerMigration("unreadable-times-v1") { db in
            let readable = "GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-6][0-9]*'"
            let now = "strftime('%Y-%m-%d %H:%M:%f', 'now')"
            try db.execute(sql: """
                UPDATE approval SET
                    state = CASE WHEN state = 'pending' THEN 'expired' ELSE state END,
                    resolved_at = CASE WHEN resolved_at IS NULL OR resolved_at NOT \(readable) THEN \(now) ELSE resolved_at END,
                    requested_at = CASE WHEN requested_at NOT \(readable) THEN \(now) ELSE requested_at END,
                    expires_at = \(now)
                WHERE expires_at NOT \(readable) OR requested_at NOT \(readable)
                """)
            try db.execute(sql: """
                UPDATE two_factor_request SET
                    state = CASE WHEN state = 'pending' THEN 'expired' ELSE state END, expires_at = \(now)
                WHERE expires_at NOT \(readable)
                """)
        }
        // Push bombing defences (AgentStore+Fatigue): muted accounts; when each push arrived, counted per account
        // against its budget; what the user sees of it, so identical pending requests collapse into one.
        migrator.registerMigration("fatigue-v1") { db in
            try db.alter(table: "account") { t in
                t.add(column: "muted_until", .datetime)
                t.add(column: "mute_reason", .text)
            }
            try db.alter(table: "approval") { t in
                t.add(column: "received_at", .datetime)
                t.add(column: "similarity_key", .text)
                t.add(column: "automatic", .text)
            }
            try db.create(index: "approval_account_received", on: "approval", columns: ["account_id", "received_at"])
        }
        // Secrets sealed under a key-encryption key (AgentStore+Sealing): which key, so another one is refused.
        migrator.registerMigration("sealing-v1") { db in
            try db.create(table: "sealing") { t in
                t.primaryKey("singleton", .integer).check { $0 == 1 }
                t.column("key_id", .text).notNull()
                t.column("sealed_at", .datetime).notNull()
            }
        }
        // The FCM receiver's registration per Firebase app (AgentStore+FCM): sealed whole, its token apart.
        migrator.registerMigration("fcm-v1") { db in
            try db.create(table: "fcm_registration") { t in
                t.primaryKey("app", .text)
                t.column("sealed", .blob).notNull()
                t.column("token", .text).notNull()
                t.column("registered_at", .datetime).notNull()
            }
            // Which accounts' providers push through FCM, to whose token: a relay re-registration leaves them be.
            try db.alter(table: "account") { t in t.add(column: "fcm_app", .text) }
        }
        // The attempt counts moved to a file of their own (AttemptLedger), so a push costs one commit here, not
        // two; counts in flight at the upgrade start over.
        migrator.registerMigration("ingest-attempt-file-v1") { db in
            try db.drop(table: "ingest_attempt")
        }
        // Each approval a push creates looks for pending look-alikes to replace (AgentStore.supersedeSimilar): through
        // this index it reads those alone, not every pending approval of the account, which a burst piles up.
        migrator.registerMigration("approval-look-alike-index-v1") { db in
            try db.execute(sql: """
                CREATE INDEX approval_pending_look_alike ON approval(account_id, similarity_key) WHERE state = 'pending'
                """)
        }
        // Web Push subscriptions scripts made (`pushctl webpush subscribe`) and the messages that came through them
        // (AgentStore+WebPush): a message is keyed by its relay message id, so a redelivery after a crash is absorbed.
        migrator.registerMigration("webpush-v1") { db in
            try db.create(table: "webpush_subscriptions") { t in
                t.primaryKey("relay_subscription_id", .text)
                t.column("name", .text).notNull()
                t.column("owner_uid", .integer).notNull()
                t.column("sealed", .blob).notNull()
                t.column("created_at", .datetime).notNull()
                t.uniqueKey(["owner_uid", "name"])
            }
            try db.create(table: "webpush_messages") { t in
                t.primaryKey("relay_message_id", .text)
                t.column("subscription_id", .text).notNull()
                    .references("webpush_subscriptions", column: "relay_subscription_id", onDelete: .cascade)
                t.column("body", .blob).notNull()
                t.column("urgency", .text).notNull()
                t.column("topic", .text)
                t.column("received_at", .datetime).notNull()
                t.column("delivered_at", .datetime)
            }
            try db.create(index: "webpush_messages_undelivered", on: "webpush_messages",
                          columns: ["subscription_id", "delivered_at", "received_at"])
        }
        // UnifiedPush apps' subscriptions (the distributor's, looked up by the digest of the connector's token; the
        // token itself is sealed with the endpoint), and each message's end of life, its sender's TTL.
        migrator.registerMigration("webpush-apps-v1") { db in
            try db.alter(table: "webpush_subscriptions") { t in t.add(column: "app_token_digest", .blob) }
            try db.create(index: "webpush_subscriptions_app_token", on: "webpush_subscriptions",
                          columns: ["owner_uid", "app_token_digest"], unique: true, condition: Column("app_token_digest") != nil)
            try db.alter(table: "webpush_messages") { t in t.add(column: "expires_at", .datetime) }
        }
        return migrator
    }
}
