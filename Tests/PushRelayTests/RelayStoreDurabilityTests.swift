import Foundation
import GRDB
@testable import PushRelay
import Testing

struct RelayStoreDurabilityTests {
    @Test func everyCommitWaitsForTheDisk() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("relay-store-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try SQLiteRelayStore(directory: directory)
        // 2 = FULL: a message the send API accepted survives a power cut, not only a crashed process.
        let synchronous = try await store.pool.write { try Int.fetchOne($0, sql: "PRAGMA synchronous") }
        #expect(synchronous == 2)
    }

    /// Another connection holding the file a moment (an admin's sqlite3, a store of this process still closing, as
    /// one was in a test restarting its relay) is waited for, not answered "database is locked" at once.
    @Test func aLockHeldAMomentByAnotherConnectionIsWaitedFor() async throws {
        let directory = try makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let holder = try DatabaseQueue(path: directory + "/relay.sqlite")
        try await holder.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE")
            try db.execute(sql: "BEGIN EXCLUSIVE; CREATE TABLE held (x); COMMIT")
        }
        // Released from a thread of its own: opening the store blocks the thread it runs on, and in one full run a task
        // sleeping to release the lock got no thread of Swift's small pool until the store had given up. A close that
        // failed would keep the lock: the store's open then fails as it did before the fix.
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 0.3)
            try? holder.close()
        }
        let store = try SQLiteRelayStore(directory: directory)
        let device = try await store.registerDevice(name: "after the lock", platform: "linux")
        #expect(try await store.deviceID(forToken: device.token) == device.deviceID)
    }
}
