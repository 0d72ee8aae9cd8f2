import Foundation
import GRDB

/// How often each not-yet-committed message has been taken up. A message whose processing crashes the daemon is
/// delivered again after every restart; counting the attempts is what lets the next one drop it instead of dying
/// again, so one poisoned push cannot stop every other push for good.
extension AgentStore {
    /// Records that `source` is being processed; returns which attempt this is (1 for the first) and the error the
    /// previous one reported (nil when there was none, or it crashed). Written without waiting for the disk: it
    /// only has to outlive the process, and a power cut costs one retry at most.
    public func beginAttempt(_ source: MessageSource, now: Date = Date()) async throws -> (number: Int, lastError: String?) {
        try await pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            defer { try? db.execute(sql: "PRAGMA synchronous = FULL") }
            let row = try Row.fetchOne(db, sql: """
                INSERT INTO ingest_attempt (key, attempts, first_at) VALUES (?, 1, ?)
                ON CONFLICT(key) DO UPDATE SET attempts = attempts + 1 RETURNING attempts, last_error
                """, arguments: [source.processedKey, now])
            return (row?["attempts"] ?? 1, row?["last_error"])
        }
    }

    /// Why the last attempt at `source` failed without crashing, for the rejection that drops it in the end.
    public func recordAttemptFailure(_ source: MessageSource, _ problem: String) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE ingest_attempt SET last_error = ? WHERE key = ?",
                           arguments: [String(problem.prefix(500)), source.processedKey])
        }
    }
}
