import Logging
import PostgresNIO

/// The relay's tables in PostgreSQL, versioned in `schema_version`. Instances that start together all migrate: each
/// migration runs in a transaction under one advisory lock, so the first applies it and the others then find it done.
enum PostgresSchema {
    /// Held by the migrating transaction; any other lock key in the database is unaffected. "pushrely" in ASCII.
    static let migrationLock: Int64 = 0x7075_7368_7265_6c79

    /// Migration n (1-based) brings the schema to version n. Append; never edit one that has shipped.
    static let migrations: [[PostgresQuery]] = [
        [
            // last_seq: the device's sequence counter, bumped under its row lock by each send, so per device the
            // numbers grow in commit order. delivered_seq: the highest seq a poll handed out (`CursorAheadError`).
            """
            CREATE TABLE device (
                id text PRIMARY KEY,
                token text NOT NULL UNIQUE,
                secret_hash bytea NOT NULL,
                name text NOT NULL,
                platform text NOT NULL,
                created_at bigint NOT NULL,
                last_seq bigint NOT NULL DEFAULT 0,
                delivered_seq bigint NOT NULL DEFAULT 0
            )
            """,
            """
            CREATE TABLE message (
                device_id text NOT NULL REFERENCES device (id) ON DELETE CASCADE,
                seq bigint NOT NULL,
                message_id text NOT NULL,
                data text NOT NULL,
                notification text,
                priority text NOT NULL,
                collapse_key text,
                sent_at bigint NOT NULL,
                expires_at bigint NOT NULL,
                PRIMARY KEY (device_id, seq)
            )
            """,
            "CREATE INDEX message_by_expiry ON message (expires_at)",
            """
            CREATE TABLE access_token (
                token_hash bytea NOT NULL,
                project text NOT NULL,
                service_account text NOT NULL,
                key_id text NOT NULL,
                issued_at bigint NOT NULL,
                expires_at bigint NOT NULL,
                PRIMARY KEY (token_hash, project)
            )
            """,
            "CREATE INDEX access_token_by_expiry ON access_token (expires_at)",
            // A send in one round trip (`PostgresRelayStore.enqueue`). Each statement of a function takes a fresh
            // snapshot, so the count sees every message committed before the row lock was granted: the bound is
            // exact across instances. No row: the device does not exist. A full queue raises `queueFullState`,
            // rolling back the seq and any collapse.
            """
            CREATE FUNCTION pushrelay_enqueue(
                p_device text, p_message_id text, p_data text, p_notification text, p_priority text,
                p_collapse_key text, p_now bigint, p_expires_at bigint, p_limit bigint,
                OUT seq bigint, OUT collapsed integer) RETURNS SETOF record LANGUAGE plpgsql AS $$
            BEGIN
                UPDATE device SET last_seq = last_seq + 1 WHERE id = p_device RETURNING last_seq INTO seq;
                IF NOT FOUND THEN RETURN; END IF;
                collapsed := 0;
                IF p_collapse_key IS NOT NULL THEN
                    DELETE FROM message WHERE device_id = p_device AND collapse_key = p_collapse_key;
                    GET DIAGNOSTICS collapsed = ROW_COUNT;
                END IF;
                IF (SELECT count(*) FROM message WHERE device_id = p_device AND expires_at > p_now) >= p_limit THEN
                    RAISE EXCEPTION 'queue of device % is full', p_device USING ERRCODE = '\(unescaped: queueFullState)';
                END IF;
                INSERT INTO message (device_id, seq, message_id, data, notification, priority, collapse_key, sent_at, expires_at)
                VALUES (p_device, seq, p_message_id, p_data, p_notification, p_priority, p_collapse_key, p_now, p_expires_at);
                RETURN NEXT;
            END $$
            """,
        ],
        [
            // queued: the device's message rows, kept under its row lock by every send and acknowledgement, so a
            // send's bound check costs O(1) instead of a count over its queue. The sweep of expired rows leaves it
            // alone (it takes no device lock), so it may only be too high: at the bound the live messages are
            // counted, exactly as before, and the counter set right. (An instance of schema 1 still running during an
            // upgrade acknowledges without decrementing: too high again, set right the same way.) Existing devices
            // start too high, which costs each one count at its next send; a constant default changes no row, so the
            // migration holds its table lock for no longer than it takes to write the catalog. New devices start at 0.
            "ALTER TABLE device ADD COLUMN queued bigint NOT NULL DEFAULT 1000000000000",
            "ALTER TABLE device ALTER COLUMN queued SET DEFAULT 0",
            """
            CREATE OR REPLACE FUNCTION pushrelay_enqueue(
                p_device text, p_message_id text, p_data text, p_notification text, p_priority text,
                p_collapse_key text, p_now bigint, p_expires_at bigint, p_limit bigint,
                OUT seq bigint, OUT collapsed integer) RETURNS SETOF record LANGUAGE plpgsql AS $$
            DECLARE
                v_queued bigint;
                v_live bigint;
            BEGIN
                UPDATE device SET last_seq = last_seq + 1, queued = queued + 1 WHERE id = p_device
                    RETURNING last_seq, queued INTO seq, v_queued;
                IF NOT FOUND THEN RETURN; END IF;
                collapsed := 0;
                IF p_collapse_key IS NOT NULL THEN
                    DELETE FROM message WHERE device_id = p_device AND collapse_key = p_collapse_key;
                    GET DIAGNOSTICS collapsed = ROW_COUNT;
                    IF collapsed > 0 THEN
                        v_queued := v_queued - collapsed;
                        UPDATE device SET queued = v_queued WHERE id = p_device;
                    END IF;
                END IF;
                -- v_queued counts this message: the others number v_queued - 1, and only past the bound can the
                -- live ones among them reach it.
                IF v_queued > p_limit THEN
                    SELECT count(*), count(*) FILTER (WHERE expires_at > p_now) INTO v_queued, v_live
                        FROM message WHERE device_id = p_device;
                    IF v_live >= p_limit THEN
                        RAISE EXCEPTION 'queue of device % is full', p_device USING ERRCODE = '\(unescaped: queueFullState)';
                    END IF;
                    UPDATE device SET queued = v_queued + 1 WHERE id = p_device;
                END IF;
                INSERT INTO message (device_id, seq, message_id, data, notification, priority, collapse_key, sent_at, expires_at)
                VALUES (p_device, seq, p_message_id, p_data, p_notification, p_priority, p_collapse_key, p_now, p_expires_at);
                RETURN NEXT;
            END $$
            """,
            // A poll in one round trip and one statement (`PostgresStatements.Poll`). Every writer locks the device's
            // row before its messages (a send by its `last_seq` update, an acknowledging poll here), so two of them
            // never wait for each other crosswise. A poll with nothing to acknowledge takes no lock: the device's
            // sends commit in seq order under theirs, so the rows it reads are a prefix of the queue, and
            // `delivered_seq` only grows (`GREATEST`: two polls of one device may run on two instances). A cursor
            // beyond `delivered_seq` acknowledges nothing: the caller sees `delivered` below its `after`.
            """
            CREATE FUNCTION pushrelay_poll(
                p_device text, p_after bigint, p_limit integer, p_now bigint, p_acknowledge boolean,
                OUT acknowledged integer, OUT delivered bigint, OUT seq bigint, OUT message_id text, OUT data text,
                OUT notification text, OUT priority text, OUT sent_at bigint, OUT expires_at bigint)
                RETURNS SETOF record LANGUAGE plpgsql AS $$
            DECLARE
                v_last bigint;
                v_acknowledges boolean;
            BEGIN
                acknowledged := 0;
            \(unescaped: poll(.wholeFunction))
            END $$
            """,
        ],
        [
            // Sends in batches (`PostgresStatements.EnqueueBatch`, `SendBatcher`): one statement and one commit for
            // every send that arrived while the previous batch was in the database. Each send is
            // `pushrelay_enqueue`'s, but a full queue ends only that send: its seq and counter are put back under the
            // row lock (nobody else saw them), where raising would roll back the whole batch. A collapse before a
            // full queue stays done; it can only have removed expired messages, since a live one removed would have
            // made room. The caller orders the batch by device, so two batches lock their rows in the same order and
            // never wait for each other crosswise.
            """
            CREATE FUNCTION pushrelay_enqueue_batch(
                p_devices text[], p_message_ids text[], p_data text[], p_notifications text[], p_priorities text[],
                p_collapse_keys text[], p_sent_at bigint[], p_expires_at bigint[], p_limit bigint,
                OUT ord integer, OUT seq bigint, OUT collapsed integer) RETURNS SETOF record LANGUAGE plpgsql AS $$
            DECLARE
                v_device text;
                v_queued bigint;
                v_live bigint;
            BEGIN
                FOR i IN 1 .. coalesce(array_length(p_devices, 1), 0) LOOP
                    ord := i;
                    v_device := p_devices[i];
                    UPDATE device SET last_seq = last_seq + 1, queued = queued + 1 WHERE id = v_device
                        RETURNING last_seq, queued INTO seq, v_queued;
                    CONTINUE WHEN NOT FOUND;
                    collapsed := 0;
                    IF p_collapse_keys[i] IS NOT NULL THEN
                        DELETE FROM message m WHERE m.device_id = v_device AND m.collapse_key = p_collapse_keys[i];
                        GET DIAGNOSTICS collapsed = ROW_COUNT;
                        IF collapsed > 0 THEN
                            v_queued := v_queued - collapsed;
                            UPDATE device SET queued = v_queued WHERE id = v_device;
                        END IF;
                    END IF;
                    IF v_queued > p_limit THEN
                        SELECT count(*), count(*) FILTER (WHERE m.expires_at > p_sent_at[i]) INTO v_queued, v_live
                            FROM message m WHERE m.device_id = v_device;
                        IF v_live >= p_limit THEN
                            UPDATE device SET last_seq = last_seq - 1, queued = v_queued WHERE id = v_device;
                            seq := NULL;
                            RETURN NEXT;
                            CONTINUE;
                        END IF;
                        UPDATE device SET queued = v_queued + 1 WHERE id = v_device;
                    END IF;
                    INSERT INTO message (device_id, seq, message_id, data, notification, priority, collapse_key, sent_at, expires_at)
                    VALUES (v_device, seq, p_message_ids[i], p_data[i], p_notifications[i], p_priorities[i], p_collapse_keys[i],
                            p_sent_at[i], p_expires_at[i]);
                    RETURN NEXT;
                END LOOP;
            END $$
            """,
            // Polls in batches, the same way: each is `pushrelay_poll`'s, its rows tagged with its place in the
            // batch. The caller orders the batch by device, as for sends.
            """
            CREATE FUNCTION pushrelay_poll_batch(
                p_devices text[], p_afters bigint[], p_limits integer[], p_nows bigint[], p_acknowledge boolean[],
                OUT ord integer, OUT acknowledged integer, OUT delivered bigint, OUT seq bigint, OUT message_id text,
                OUT data text, OUT notification text, OUT priority text, OUT sent_at bigint, OUT expires_at bigint)
                RETURNS SETOF record LANGUAGE plpgsql AS $$
            DECLARE
                v_device text;
                v_after bigint;
                v_last bigint;
                v_acknowledges boolean;
            BEGIN
                FOR i IN 1 .. coalesce(array_length(p_devices, 1), 0) LOOP
                    ord := i;
                    v_device := p_devices[i];
                    v_after := p_afters[i];
                    v_last := NULL;
                    acknowledged := 0;
                    seq := NULL; message_id := NULL; data := NULL; notification := NULL; priority := NULL;
                    sent_at := NULL; expires_at := NULL;
            \(unescaped: poll(.batchTurn))
                END LOOP;
            END $$
            """,
        ],
        [
            // Web Push subscriptions. No foreign key to the device: a removed subscription, and every subscription of
            // a deleted device, stays as a tombstone so its senders get 410 rather than 404.
            """
            CREATE TABLE webpush_subscriptions (
                id text PRIMARY KEY,
                device_id text NOT NULL,
                token_digest bytea NOT NULL UNIQUE,
                application_server_key bytea,
                created_at bigint NOT NULL,
                removed_at bigint
            )
            """,
            "CREATE INDEX webpush_subscriptions_by_device ON webpush_subscriptions (device_id)",
        ],
    ]

    /// Where one poll's PL/pgSQL runs: the whole of `pushrelay_poll`, or one turn of `pushrelay_poll_batch`'s loop
    /// over its polls. The two are one poll, so they are written once (`poll(_:)`).
    private enum PollScope {
        case wholeFunction, batchTurn

        /// The poll's device, cursor, limit, clock and acknowledge flag: the function's parameters, or the turn's.
        var device: String { self == .wholeFunction ? "p_device" : "v_device" }
        var after: String { self == .wholeFunction ? "p_after" : "v_after" }
        var limit: String { self == .wholeFunction ? "p_limit" : "p_limits[i]" }
        var now: String { self == .wholeFunction ? "p_now" : "p_nows[i]" }
        var acknowledge: String { self == .wholeFunction ? "p_acknowledge" : "p_acknowledge[i]" }
        /// Ends this poll: the function returns, the batch goes on to its next poll.
        var leave: String { self == .wholeFunction ? "RETURN" : "CONTINUE" }
        var leaveIfNoDevice: String { self == .wholeFunction ? "IF NOT FOUND THEN RETURN; END IF;" : "CONTINUE WHEN NOT FOUND;" }
        var indent: String { self == .wholeFunction ? "    " : "        " }
    }

    /// One poll, after its outputs are reset: its rows, acknowledgement and `delivered_seq` mark. The text is the
    /// one migrations 2 and 3 have always run (a shipped migration never changes), only written once.
    private static func poll(_ scope: PollScope) -> String {
        let (device, after) = (scope.device, scope.after)
        return """
            SELECT d.delivered_seq, \(scope.acknowledge) AND EXISTS (
                SELECT 1 FROM message m WHERE m.device_id = \(device) AND m.seq <= \(after))
                INTO delivered, v_acknowledges FROM device d WHERE d.id = \(device);
            \(scope.leaveIfNoDevice)
            IF \(after) > delivered THEN RETURN NEXT; \(scope.leave); END IF;
            IF v_acknowledges THEN
                PERFORM 1 FROM device d WHERE d.id = \(device) FOR UPDATE;
                DELETE FROM message m WHERE m.device_id = \(device) AND m.seq <= \(after);
                GET DIAGNOSTICS acknowledged = ROW_COUNT;
                UPDATE device d SET queued = d.queued - acknowledged WHERE d.id = \(device);
            END IF;
            FOR seq, message_id, data, notification, priority, sent_at, expires_at IN
                SELECT m.seq, m.message_id, m.data, m.notification, m.priority, m.sent_at, m.expires_at
                FROM message m WHERE m.device_id = \(device) AND m.seq > \(after) AND m.expires_at > \(scope.now)
                ORDER BY m.seq LIMIT \(scope.limit)
            LOOP
                v_last := seq;
                RETURN NEXT;
            END LOOP;
            IF v_last IS NULL THEN
                RETURN NEXT;
            ELSIF v_last > delivered THEN
                UPDATE device d SET delivered_seq = GREATEST(d.delivered_seq, v_last) WHERE d.id = \(device);
            END IF;
            """
            .split(separator: "\n", omittingEmptySubsequences: false)
            .map { scope.indent + $0 }
            .joined(separator: "\n")
    }

    /// The SQLSTATE `pushrelay_enqueue` raises for a full queue (class PR: ours, unused by PostgreSQL).
    static let queueFullState = "PR001"

    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws {
        do {
            try await applyMigrations(connection, logger: logger)
        } catch {
            throw unwrapped(error)
        }
    }

    /// postgres-nio wraps whatever ends a transaction; the relay's own outcomes (a full queue, a cursor ahead, a
    /// schema too new) must come out as themselves, and a database error as the server's.
    static func unwrapped(_ error: any Error) -> any Error {
        guard let error = error as? PostgresTransactionError else { return error }
        return error.closureError ?? error.beginError ?? error.commitError ?? error
    }

    private static func applyMigrations(_ connection: PostgresConnection, logger: Logger) async throws {
        for (index, statements) in migrations.enumerated() {
            let version = index + 1
            try await connection.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLock))", logger: logger)
                try await connection.query(
                    "CREATE TABLE IF NOT EXISTS schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
                    logger: logger)
                let current = try await connection.single("SELECT coalesce(max(version), 0) FROM schema_version", as: Int.self, logger: logger) ?? 0
                guard current <= migrations.count else { throw SchemaTooNew(found: current, known: migrations.count) }
                guard current < version else { return }
                for statement in statements { try await connection.query(statement, logger: logger) }
                try await connection.query("INSERT INTO schema_version (version) VALUES (\(version))", logger: logger)
                logger.notice("PostgreSQL schema migrated to version \(version)")
            }
        }
    }
}

/// A newer pushrelay migrated the database: this one would not know its tables.
struct SchemaTooNew: Error, CustomStringConvertible {
    var found: Int
    var known: Int

    var description: String {
        "the PostgreSQL schema is at version \(found), but this pushrelay knows only up to \(known): upgrade this instance like the others"
    }
}

extension PostgresConnection {
    /// The first column of the first row, nil without rows; the rows are read to the end, as the connection needs.
    func single<Value: PostgresDecodable>(_ query: PostgresQuery, as type: Value.Type, logger: Logger) async throws -> Value? {
        try await self.query(query, logger: logger).collect().first?.decode(Value.self)
    }

    /// How many rows a statement returned (a `DELETE … RETURNING 1`, say), having read them.
    func count(_ query: PostgresQuery, logger: Logger) async throws -> Int {
        try await self.query(query, logger: logger).collect().count
    }
}
