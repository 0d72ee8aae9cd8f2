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
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("relay-store-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let holder = try DatabaseQueue(path: directory + "/relay.sqlite")
        try await holder.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE")
            try db.execute(sql: "BEGIN EXCLUSIVE; CREATE TABLE held (x); COMMIT")
        }
        let release = Task {
            try await Task.sleep(for: .milliseconds(300))
            try holder.close()
        }
        let store = try SQLiteRelayStore(directory: directory)
        try await release.value
        let device = try await store.registerDevice(name: "after the lock", platform: "linux")
        #expect(try await store.deviceID(forToken: device.token) == device.deviceID)
    }
}
