import GRDB
import SQLiteWrites
import Synchronization

/// Group commit: writes that arrive while a transaction is committing wait and share the next one, so under load
/// many sends and acknowledgements cost one disk flush instead of one each, and none is answered before the
/// flush that makes it durable. Idle, a write is committed at once, alone.
///
/// Each write runs in its own savepoint: one that throws (a full queue, a cursor ahead) undoes only itself. A write
/// must let through any database error it does not expect: after a full disk or an I/O error SQLite may have rolled the
/// shared transaction back, and the statements it ran after the error would each commit alone.
final class GroupCommit: Sendable {
    private struct Job: Sendable {
        /// Runs the write in the shared transaction and returns how to answer its caller once the transaction
        /// committed (nil) or failed.
        let run: @Sendable (Database) -> @Sendable ((any Error)?) -> Void
        /// Answers a caller whose write never ran because its transaction failed first.
        let fail: @Sendable (any Error) -> Void
    }

    private struct Queue {
        var pending: [Job] = []
        /// Writes that ride with the next transaction rather than start one (`writeLater`).
        var riding: [Job] = []
        /// When the oldest of `riding` arrived.
        var ridingSince: ContinuousClock.Instant?
        /// Whether the timer that starts a transaction for riders left waiting is set. One at a time: a timer per rider
        /// would cost a task and a wake-up for every acknowledged message, each found to have nothing left to do.
        var riderTimerSet = false
        var draining = false
    }

    /// How long a write that rides waits for a transaction to ride in before it starts one itself.
    private let rideWindow: Duration

    private let writer: DatabasePool
    /// Runs first in every shared transaction (expiry sweeping), so that it costs once per batch, not per write.
    private let beforeEachBatch: @Sendable (Database) throws -> Void
    private let queue = Mutex(Queue())

    init(
        writer: DatabasePool, rideWindow: Duration = .seconds(1),
        beforeEachBatch: @escaping @Sendable (Database) throws -> Void = { _ in }
    ) {
        self.writer = writer
        self.rideWindow = rideWindow
        self.beforeEachBatch = beforeEachBatch
    }

    /// Runs `body` in the next shared transaction and tells `whenCommitted` its result once that transaction is on disk
    /// (or failed), on the writer's thread, in commit order. For a caller on an event loop: the writer answers it
    /// directly, with no task started only to wait here.
    func write<T: Sendable>(
        _ body: @escaping @Sendable (Database) throws -> T,
        whenCommitted: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        submit(Job(
            run: { db in
                let result = Self.inSavepoint(db, body)
                return { commitError in whenCommitted(commitError.map { .failure($0) } ?? result) }
            },
            fail: { whenCommitted(.failure($0)) }))
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            write(body) { continuation.resume(with: $0) }
        }
    }

    /// A write whose caller does not wait and that need not be durable soon: it rides with the next shared
    /// transaction, which a `write` starts, and starts one itself only after `rideWindow` without one, so that it costs
    /// no disk flush of its own under any load. `committed` is told whether it is on disk (false: it or its
    /// transaction failed).
    func writeLater(_ body: @escaping @Sendable (Database) throws -> Void, committed: @escaping @Sendable (Bool) -> Void = { _ in }) {
        let job = Job(
            run: { db in
                let result = Self.inSavepoint(db, body)
                return { commitError in committed(commitError == nil && (try? result.get()) != nil) }
            },
            fail: { _ in committed(false) })
        let setsTimer = queue.withLock { queue in
            queue.riding.append(job)
            if queue.ridingSince == nil { queue.ridingSince = .now }
            guard !queue.riderTimerSet else { return false }
            queue.riderTimerSet = true
            return true
        }
        if setsTimer { setRiderTimer(in: rideWindow) }
    }

    private func setRiderTimer(in delay: Duration) {
        Task {
            try? await Task.sleep(for: delay)
            self.riderTimerFired()
        }
    }

    /// Starts a transaction for riders that have waited `rideWindow`; for younger ones, waits until the oldest has.
    private func riderTimerFired() {
        enum Next { case wait(Duration), drain, nothing }
        let next = queue.withLock { queue -> Next in
            if let since = queue.ridingSince {
                let waited = since.duration(to: .now)
                if waited < rideWindow { return .wait(rideWindow - waited) }
            }
            queue.riderTimerSet = false
            // A drain under way takes the riders with its next batch.
            guard queue.ridingSince != nil, !queue.draining else { return .nothing }
            queue.draining = true
            return .drain
        }
        switch next {
        case .wait(let delay): setRiderTimer(in: delay)
        case .drain: writer.asyncWriteWithoutTransaction { db in self.drain(db) }
        case .nothing: break
        }
    }

    /// GRDB's `inSavepoint` compiles its three statements anew on every call; under load that was a measurable
    /// share of a send, so the savepoint is driven through cached statements instead.
    private static func inSavepoint<T>(_ db: Database, _ body: (Database) throws -> T) -> Result<T, any Error> {
        do {
            try db.cachedStatement(sql: "SAVEPOINT groupWrite").execute()
        } catch {
            return .failure(error)
        }
        let result = Result { try body(db) }
        do {
            if case .failure = result {
                try db.cachedStatement(sql: "ROLLBACK TO SAVEPOINT groupWrite").execute()
            }
            try db.cachedStatement(sql: "RELEASE SAVEPOINT groupWrite").execute()
        } catch {
            return .failure(error)
        }
        return result
    }

    private func submit(_ job: Job) {
        let startsDrain = queue.withLock { queue in
            queue.pending.append(job)
            guard !queue.draining else { return false }
            queue.draining = true
            return true
        }
        if startsDrain {
            writer.asyncWriteWithoutTransaction { db in self.drain(db) }
        }
    }

    /// Commits batch after batch on the writer's thread while writes are waiting. Riders go with every batch but start
    /// one only once due: those that arrive while a transaction commits (the delivered mark of a poll that commit
    /// woke, the acknowledgement the poll's answer brings back) wait for the next write or their window, or each
    /// message sent one at a time would cost three flushes instead of one.
    private func drain(_ db: Database) {
        while true {
            let batch = queue.withLock { queue -> [Job] in
                let ridersDue = queue.ridingSince.map { $0.duration(to: .now) >= rideWindow } ?? false
                guard !queue.pending.isEmpty || ridersDue else {
                    queue.draining = false
                    return []
                }
                let batch = queue.riding + queue.pending
                queue.ridingSince = nil
                queue.pending.removeAll(keepingCapacity: true)
                queue.riding.removeAll(keepingCapacity: true)
                return batch
            }
            if batch.isEmpty { return }
            var answers: [@Sendable ((any Error)?) -> Void] = []
            answers.reserveCapacity(batch.count)
            do {
                try db.inCachedTransaction {
                    try beforeEachBatch(db)
                    for job in batch {
                        // Out of its transaction, a write's savepoint would commit it on its own, answered as failed.
                        guard db.isInsideTransaction else { throw DatabaseError.rolledBackBySQLite }
                        answers.append(job.run(db))
                    }
                }
                for answer in answers { answer(nil) }
            } catch {
                // The transaction failed as a whole (the sweep, SQLite's own rollback, or the commit itself): nothing
                // of it is durable.
                for answer in answers { answer(error) }
                for job in batch.dropFirst(answers.count) { job.fail(error) }
            }
        }
    }
}
