import ClusterHarness
import Foundation
import GRDB
import Synchronization
@testable import PushRelay
import Testing

/// Issue 26: a poll's acknowledgement need not be on disk before the poll is answered (a lost one only delivers its
/// messages again), so polls must not wait for the writer, whose commits each wait for a disk flush.
struct RelayStorePollTests {
    private func withStore(_ body: (SQLiteRelayStore) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("relay-poll-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await body(SQLiteRelayStore(directory: directory))
    }

    private func send(_ n: Int, to deviceID: String, _ store: SQLiteRelayStore) async throws -> Int64 {
        let message = OutgoingMessage(data: ["n": "\(n)"], priority: .high, collapseKey: nil, ttlMilliseconds: 60_000)
        return try #require(try await store.enqueue(message, deviceID: deviceID, now: nowMilliseconds())).message.seq
    }

    @Test func pollsAnswerWhileTheWriterIsBusyAndTheirAcknowledgementsCommitAfter() async throws {
        try await withStore { store in
            let device = try await store.registerDevice(name: "laptop", platform: "linux").deviceID
            let first = try await send(1, to: device, store)
            let second = try await send(2, to: device, store)

            // The writer is held until the polls are done, as by a long run of flushes: every commit waits behind
            // it. Should the polls wait for it, the watchdog lets it go after 20 s and the test fails.
            let release = DispatchSemaphore(value: 0), entered = DispatchSemaphore(value: 0)
            let watchdogReleased = Atomic(false)
            let writerHeld = Task { try await store.pool.writeWithoutTransaction { _ in entered.signal(); release.wait() } }
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async { entered.wait(); continuation.resume() }
            }
            let watchdog = Task {
                try await Task.sleep(for: .seconds(20))
                watchdogReleased.store(true, ordering: .relaxed)
                release.signal()
            }
            let delivered = try #require(try await store.poll(deviceID: device, after: 0, limit: 100, now: nowMilliseconds()))
            #expect(delivered.messages.map(\.seq) == [first, second])
            let acknowledging = try #require(try await store.poll(deviceID: device, after: second, limit: 100, now: nowMilliseconds()))
            #expect(acknowledging.acknowledged == 2)
            #expect(acknowledging.messages.isEmpty)
            let waitedForTheWriter = watchdogReleased.load(ordering: .relaxed)
            #expect(!waitedForTheWriter, "the polls did not wait for the writer")
            let stillThere = try await store.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM message") }
            #expect(stillThere == 2, "the acknowledgement waits for the next commit")
            watchdog.cancel()
            if !waitedForTheWriter { release.signal() }
            try await writerHeld.value
            try await eventually("the acknowledgement committed with the next group") {
                try await store.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM message") } == 0
            }
            let mark = try await store.pool.read { try Int64.fetchOne($0, sql: "SELECT delivered_seq FROM device") }
            #expect(mark == second)
            await #expect(throws: CursorAheadError.self, "a seq never handed out is still refused") {
                try await store.poll(deviceID: device, after: second + 1, limit: 100, now: nowMilliseconds())
            }
        }
    }

    /// A poll's delivered mark commits later, and may commit while the device's next poll reads: that poll must
    /// still see it, in memory or on disk (the benchmark's device got `cursor_ahead` twice in 2,300 messages; 500 polls
    /// against a sender failed at once).
    @Test func aDeliveredMarkCommittingDuringTheNextPollIsNeverTakenForACursorAhead() async throws {
        try await withStore { store in
            let device = try await store.registerDevice(name: "laptop", platform: "linux").deviceID
            let sending = Task {
                var n = 0
                while !Task.isCancelled {
                    n += 1
                    _ = try await send(n, to: device, store)
                }
            }
            defer { sending.cancel() }
            var cursor: Int64 = 0
            for _ in 0..<500 {
                let result = try #require(try await store.poll(deviceID: device, after: cursor, limit: 1, now: nowMilliseconds()))
                cursor = result.messages.last?.seq ?? cursor
            }
            #expect(cursor > 0, "the polls met the sends")
        }
    }

    /// The poll acknowledging the message its device was just handed is answered without a read; its
    /// acknowledgement and the delivered mark still reach the disk, and a cursor beyond what was handed out is still
    /// refused, by the read it is left to.
    @Test func theAcknowledgingPollIsAnsweredFromMemoryAndStillCommits() async throws {
        try await withStore { store in
            let device = try await store.registerDevice(name: "laptop", platform: "linux").deviceID
            #expect(store.pollFromMemory(deviceID: device, after: 0, now: nowMilliseconds()) == nil, "never read yet")
            let empty = try #require(try await store.poll(deviceID: device, after: 0, limit: 100, now: nowMilliseconds()))
            #expect(empty.messages.isEmpty)
            let seq = try await send(1, to: device, store)
            #expect(store.recentMessages(deviceID: device, after: 0, now: nowMilliseconds())?.map(\.seq) == [seq])

            #expect(store.pollFromMemory(deviceID: device, after: seq + 1, now: nowMilliseconds()) == nil)
            let acknowledging = try #require(store.pollFromMemory(deviceID: device, after: seq, now: nowMilliseconds()))
            #expect(acknowledging.acknowledged == 1)
            #expect(acknowledging.messages.isEmpty)
            try await eventually("the acknowledgement and the delivered mark committed") {
                try await store.pool.read { db in
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM message") == 0
                        && Int64.fetchOne(db, sql: "SELECT delivered_seq FROM device") == seq
                }
            }
            let again = try #require(try await store.poll(deviceID: device, after: seq, limit: 100, now: nowMilliseconds()))
            #expect(again.acknowledged == 0, "acknowledged once, counted once")
            await #expect(throws: CursorAheadError.self) {
                try await store.poll(deviceID: device, after: seq + 1, limit: 100, now: nowMilliseconds())
            }
        }
    }
}
