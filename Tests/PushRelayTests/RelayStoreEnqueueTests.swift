import Foundation
import GRDB
@testable import PushRelay
import Testing

/// A send learns that its device is gone from the message's foreign key, inside a transaction it shares with other
/// sends: it must come back as "no such device" and leave the others' messages committed.
struct RelayStoreEnqueueTests {
    private func withStore(maximumQueued: Int = 100, _ body: (SQLiteRelayStore) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("relay-enqueue-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await body(SQLiteRelayStore(directory: directory, maximumQueuedPerDevice: maximumQueued))
    }

    private func message(_ n: Int, collapseKey: String? = nil) -> OutgoingMessage {
        OutgoingMessage(data: ["n": "\(n)"], priority: .high, collapseKey: collapseKey, ttlMilliseconds: 60_000)
    }

    @Test func aSendToAnUnknownDeviceIsNoneAndStoresNothing() async throws {
        try await withStore { store in
            let result = try await store.enqueue(message(1, collapseKey: "k"), deviceID: "no-such-device", now: nowMilliseconds())
            #expect(result == nil)
            let stored = try await store.pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM message") }
            #expect(stored == 0)
        }
    }

    @Test func sendsToKnownAndUnknownDevicesInOneBatchEachGetTheirOwnAnswer() async throws {
        try await withStore { store in
            let device = try await store.registerDevice(name: "laptop", platform: "linux")
            let now = nowMilliseconds()
            let outcomes = try await withThrowingTaskGroup(of: (Int, Int64?).self) { group in
                for n in 0..<200 {
                    group.addTask {
                        let target = n % 2 == 0 ? device.deviceID : "gone-\(n)"
                        return (n, try await store.enqueue(self.message(n), deviceID: target, now: now)?.message.seq)
                    }
                }
                return try await group.reduce(into: [Int: Int64?]()) { $0[$1.0] = $1.1 }
            }
            for (n, seq) in outcomes { #expect((seq != nil) == (n % 2 == 0), "send \(n)") }
            let stored = try await store.pool.read { db in
                try String.fetchAll(db, sql: "SELECT data FROM message WHERE device_id = ? ORDER BY seq",
                                    arguments: [device.deviceID])
            }
            #expect(stored.count == 100)
        }
    }

    @Test func aSendToADeviceDeletedWithAFullQueueIsNoneNotQueueFull() async throws {
        try await withStore(maximumQueued: 2) { store in
            let device = try await store.registerDevice(name: "laptop", platform: "linux")
            let now = nowMilliseconds()
            for n in 0..<2 { #expect(try await store.enqueue(message(n), deviceID: device.deviceID, now: now) != nil) }
            await #expect(throws: DeviceQueueFull.self) {
                try await store.enqueue(message(2), deviceID: device.deviceID, now: now)
            }
            #expect(try await store.deleteDevice(id: device.deviceID))
            #expect(try await store.enqueue(message(3), deviceID: device.deviceID, now: now) == nil)
        }
    }
}
