import ClusterHarness
import Foundation
import GRDB
@testable import PushRelay
import Synchronization
import Testing

struct GroupCommitTests {
    private struct Refused: Error {}

    private func withPool(_ body: (DatabasePool) async throws -> Void) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("group-commit-\(UUID()).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let pool = try DatabasePool(path: path)
        try await pool.write { try $0.execute(sql: "CREATE TABLE row (n INTEGER NOT NULL)") }
        try await body(pool)
    }

    @Test func concurrentWritesShareTransactionsAndAllCommit() async throws {
        try await withPool { pool in
            let transactions = Atomic<Int>(0)
            let commits = GroupCommit(writer: pool) { _ in transactions.add(1, ordering: .relaxed) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in 0..<500 {
                    group.addTask { try await commits.write { try $0.execute(sql: "INSERT INTO row VALUES (?)", arguments: [n]) } }
                }
                try await group.waitForAll()
            }
            #expect(try await pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(DISTINCT n) FROM row") } == 500)
            let shared = transactions.load(ordering: .relaxed)
            #expect(shared < 500, "500 writes in \(shared) transactions")
        }
    }

    /// Issue 26: an acknowledgement need not be durable soon, so it must not cost a disk flush of its own: it rides
    /// with the next send's transaction, and only without one for `rideWindow` does it start its own.
    @Test func aWriteLaterRidesWithTheNextWriteOrCommitsAloneAfterTheWindow() async throws {
        try await withPool { pool in
            let count = { try await pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM row") } }
            let transactions = Atomic<Int>(0), committed = Atomic<Int>(0)
            let riding = GroupCommit(writer: pool, rideWindow: .seconds(60)) { _ in transactions.add(1, ordering: .relaxed) }
            riding.writeLater({ try $0.execute(sql: "INSERT INTO row VALUES (1)") }, committed: { if $0 { committed.add(1, ordering: .relaxed) } })
            try await Task.sleep(for: .milliseconds(200))
            #expect(try await count() == 0 && transactions.load(ordering: .relaxed) == 0, "it waits for a transaction to ride in")
            try await riding.write { try $0.execute(sql: "INSERT INTO row VALUES (2)") }
            #expect(try await count() == 2, "it rode with the write")
            #expect(transactions.load(ordering: .relaxed) == 1)
            #expect(committed.load(ordering: .relaxed) == 1, "and was told so")

            let alone = GroupCommit(writer: pool, rideWindow: .milliseconds(300))
            let started = ContinuousClock.now
            alone.writeLater { try $0.execute(sql: "INSERT INTO row VALUES (3)") }
            try await eventually("with nothing to ride in, it commits by itself", timeout: .seconds(20)) { try await count() == 3 }
            #expect(ContinuousClock.now - started >= .milliseconds(300))
        }
    }

    /// Issue 26: a rider that arrives while a transaction commits (the delivered mark of a poll woken from the send's
    /// `whenCommitted`, the acknowledgement its answer brings back) waits for the next write: one message at a time
    /// cost three transactions, and three flushes, when the writer started one for each of them.
    @Test func aRiderArrivingAsATransactionCommitsWaitsForTheNextWrite() async throws {
        try await withPool { pool in
            let transactions = Atomic<Int>(0)
            let commits = GroupCommit(writer: pool, rideWindow: .seconds(60)) { _ in transactions.add(1, ordering: .relaxed) }
            for n in 0..<3 {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    commits.write({ try $0.execute(sql: "INSERT INTO row VALUES (?)", arguments: [n]) }, whenCommitted: { result in
                        commits.writeLater { try $0.execute(sql: "INSERT INTO row VALUES (?)", arguments: [100 + n]) }
                        continuation.resume(with: result)
                    })
                }
            }
            try await Task.sleep(for: .milliseconds(300))
            #expect(transactions.load(ordering: .relaxed) == 3, "three writes, the riders of the first two in them")
            let stored = try await pool.read { try Int.fetchAll($0, sql: "SELECT n FROM row ORDER BY n") }
            #expect(stored == [0, 1, 2, 100, 101], "the last rider still waits")
        }
    }

    /// A rider whose window ends while a transaction it missed is committing goes with the writer's next batch though
    /// no write follows: it must not wait for one.
    @Test func aRiderDueDuringACommitItMissedIsCommittedWithoutAnotherWrite() async throws {
        try await withPool { pool in
            let commits = GroupCommit(writer: pool, rideWindow: .milliseconds(100))
            try await commits.write { db in
                commits.writeLater { try $0.execute(sql: "INSERT INTO row VALUES (2)") }
                try db.execute(sql: "INSERT INTO row VALUES (1)")
                // Ten windows, so that the rider's timer fires while this transaction holds the writer even on a
                // loaded machine.
                usleep(1_000_000)
            }
            try await eventually("the rider is committed", timeout: .seconds(20)) {
                try await pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM row") } == 2
            }
        }
    }

    /// One timer serves every rider: when it finds the riders it was set for gone with a transaction and younger ones
    /// in their place, it waits on for the oldest of those rather than commit them early.
    @Test func aRiderArrivingAfterOthersLeftStillWaitsItsWholeWindow() async throws {
        try await withPool { pool in
            let count = { try await pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM row") } }
            let commits = GroupCommit(writer: pool, rideWindow: .milliseconds(600))
            commits.writeLater { try $0.execute(sql: "INSERT INTO row VALUES (1)") }
            try await commits.write { try $0.execute(sql: "INSERT INTO row VALUES (2)") }
            try await Task.sleep(for: .milliseconds(300))
            let arrived = ContinuousClock.now
            let committedAt = Mutex<ContinuousClock.Instant?>(nil)
            commits.writeLater({ try $0.execute(sql: "INSERT INTO row VALUES (3)") },
                               committed: { _ in committedAt.withLock { $0 = .now } })
            try await eventually("the late rider commits by itself", timeout: .seconds(20)) { try await count() == 3 }
            let waited = try #require(committedAt.withLock { $0 }) - arrived
            #expect(waited >= .milliseconds(600), "committed after \(waited), before its own window ended")
        }
    }

    /// The send answered from the event loop is told by the writer itself: only once its transaction is on disk, with
    /// what its write returned or threw, and with the transaction's failure when that failed.
    @Test func aWriteToldWhenCommittedSeesItsResultOnlyOnceItIsCommitted() async throws {
        try await withPool { pool in
            let other = try DatabaseQueue(path: pool.path)
            let commits = GroupCommit(writer: pool)
            let told: (Result<Int, any Error>, visible: Int) = try await withCheckedThrowingContinuation { continuation in
                commits.write({ db -> Int in
                    try db.execute(sql: "INSERT INTO row VALUES (7)")
                    return 7
                }, whenCommitted: { result in
                    continuation.resume(with: Result {
                        (result, try other.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM row") ?? 0 })
                    })
                })
            }
            #expect(try told.0.get() == 7)
            #expect(told.visible == 1, "another connection already reads the row when the writer tells")

            let refused: Result<Int, any Error> = await withCheckedContinuation { continuation in
                commits.write({ _ -> Int in throw Refused() }, whenCommitted: { continuation.resume(returning: $0) })
            }
            #expect(throws: Refused.self) { try refused.get() }

            let failing = GroupCommit(writer: pool) { _ in throw Refused() }
            let failed: Result<Int, any Error> = await withCheckedContinuation { continuation in
                failing.write({ _ in 1 }, whenCommitted: { continuation.resume(returning: $0) })
            }
            #expect(throws: Refused.self) { try failed.get() }
        }
    }

    @Test func aWriteThatThrowsUndoesOnlyItself() async throws {
        try await withPool { pool in
            let commits = GroupCommit(writer: pool)
            let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
                for n in 0..<100 {
                    group.addTask {
                        do {
                            try await commits.write { db in
                                try db.execute(sql: "INSERT INTO row VALUES (?)", arguments: [n])
                                if n % 2 == 1 { throw Refused() }
                            }
                            return true
                        } catch is Refused {
                            return false
                        }
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 }.count == 50)
            let stored = try await pool.read { try Int.fetchAll($0, sql: "SELECT n FROM row ORDER BY n") }
            #expect(stored == Array(stride(from: 0, to: 100, by: 2)), "the odd ones' inserts were rolled back")
        }
    }

    /// When SQLite ends the shared transaction by itself (here a write that rolls it back, as a full disk or an I/O
    /// error would), the writes after it in the batch must not each commit on their own while answered as failed.
    @Test func writesAfterSQLiteEndedTheTransactionAreNotCommittedAlone() async throws {
        try await withPool { pool in
            let commits = GroupCommit(writer: pool)
            let release = DispatchSemaphore(value: 0)
            // Holds the writer until the next two writes are queued, so that they share one transaction.
            await withCheckedContinuation { (started: CheckedContinuation<Void, Never>) in
                commits.write({ _ in
                    started.resume()
                    release.wait()
                }, whenCommitted: { _ in })
            }
            let committed = Mutex<[Int: Bool]>([:])
            commits.write({ try $0.execute(sql: "ROLLBACK TRANSACTION") },
                          whenCommitted: { result in committed.withLock { $0[1] = (try? result.get()) != nil } })
            commits.write({ try $0.execute(sql: "INSERT INTO row VALUES (2)") },
                          whenCommitted: { result in committed.withLock { $0[2] = (try? result.get()) != nil } })
            release.signal()
            try await eventually("both are answered", timeout: .seconds(20)) { committed.withLock { $0.count } == 2 }
            #expect(committed.withLock { $0 } == [1: false, 2: false])
            let stored = try await pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM row") }
            #expect(stored == 0, "the insert answered as failed must not be on disk")
            try await commits.write { try $0.execute(sql: "INSERT INTO row VALUES (3)") }
            #expect(try await pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM row") } == 1, "and later writes commit")
        }
    }

    @Test func aFailedTransactionFailsEveryWriteInIt() async throws {
        try await withPool { pool in
            let commits = GroupCommit(writer: pool) { _ in throw Refused() }
            await #expect(throws: Refused.self) {
                try await commits.write { try $0.execute(sql: "INSERT INTO row VALUES (1)") }
            }
            let stored = try await pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM row") }
            #expect(stored == 0)
        }
    }
}
