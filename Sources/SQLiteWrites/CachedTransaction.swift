import GRDB

extension Database {
    /// A write transaction through BEGIN and COMMIT statements compiled once per connection. GRDB's `inTransaction`
    /// compiles them anew on every call: one message at a time, the relay's BEGIN alone took 2.6 % of its CPU, and
    /// the agent commits once a push. Like GRDB's, it reports a transaction that SQLite rolled back by itself (a full
    /// disk, an I/O error) as failed, without rolling it back again. Unlike GRDB's, it cannot make each statement after
    /// such a rollback fail (GRDB keeps that switch to itself): `body` must let every database error through, or the
    /// statements it runs after one would each commit alone.
    public func inCachedTransaction<T>(_ body: () throws -> T) throws -> T {
        try cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
        do {
            let result = try body()
            guard isInsideTransaction else { throw DatabaseError.rolledBackBySQLite }
            try cachedStatement(sql: "COMMIT TRANSACTION").execute()
            return result
        } catch {
            try? rollback()
            throw error
        }
    }
}

extension DatabaseError {
    /// A write found its transaction ended: SQLite rolled it back by itself after an error, so what came before in it
    /// is gone, and what comes after must not be committed on its own.
    public static let rolledBackBySQLite = DatabaseError(
        resultCode: .SQLITE_ABORT, message: "SQLite rolled back the transaction after an error")
}
