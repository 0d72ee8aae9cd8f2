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
}
