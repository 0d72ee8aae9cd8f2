import CurlHTTP
import Foundation
import Testing

/// Issue 12: a poll acknowledging a sequence number the relay never gave out (its state restored from an older
/// backup, or the device fed a forged reply) deletes nothing and says so, so the device can start over.
@Suite("Cursor ahead of the relay", .postgres)
struct CursorAheadTests {
    @Test(arguments: TestBackend.available) func anAcknowledgementBeyondTheLastSequenceNumberDeletesNothing(backend: TestBackend) async throws {
        try await withRelay(on: backend) { relay in
            let device = try await relay.register()
            for _ in 1...3 { #expect(try await relay.send(to: device).status == 200) }
            let last = try #require(try await relay.poll(device).messages.last?.seq)

            let ahead = try await relay.http("GET", "/v1/devices/\(device.id)/messages?after=\(last + 1_000_000_000_000)",
                                             bearer: device.secret)
            #expect(ahead.status == 409)
            let error = try errorObject(ahead)
            #expect(error["code"] as? String == "cursor_ahead")
            #expect((error["message"] as? String)?.contains("after=0") == true, "says how to recover: \(error)")

            #expect(try await relay.poll(device).messages.count == 3, "nothing was acknowledged")
            #expect(try await relay.poll(device, query: "after=\(last)").messages.isEmpty, "the real cursor still works")
        }
    }

    /// The relay restored from an older backup gives out the same sequence numbers again; once new sends catch up
    /// with the device's cursor, taking that cursor as an acknowledgement lost them (30 of 40 in the report).
    @Test func messagesSentAfterARestoreFromAnOlderBackupAreNotAcknowledgedUnseen() async throws {
        let directory = try makeStateDirectory(), backup = try makeStateDirectory()
        defer { for path in [directory, backup] { try? FileManager.default.removeItem(atPath: path) } }
        func data(_ n: Int) -> [String: Any] { ["data": ["n": "\(n)"]] }

        var relay = try await TestRelay.start(stateDirectory: directory)
        let device = try await relay.register()
        for n in 1...2 { _ = try await relay.send(to: device, data(n)) }
        _ = try await relay.poll(device)
        try await relay.stop()
        try FileManager.default.removeItem(atPath: backup)
        try FileManager.default.copyItem(atPath: directory, toPath: backup)

        relay = try await TestRelay.start(stateDirectory: directory)
        for n in 3...6 { _ = try await relay.send(to: device, data(n)) }
        let cursor = try await relay.poll(device).next
        try await relay.stop()

        try FileManager.default.removeItem(atPath: directory)
        try FileManager.default.copyItem(atPath: backup, toPath: directory)
        relay = try await TestRelay.start(stateDirectory: directory)
        for n in 7...12 { _ = try await relay.send(to: device, data(n)) }
        let ahead = try await relay.http("GET", "/v1/devices/\(device.id)/messages?after=\(cursor)", bearer: device.secret)
        #expect(ahead.status == 409, "after=\(cursor): \(ahead.text)")
        let everything = try await relay.poll(device).messages.compactMap { $0.data["n"] }
        #expect(everything == ["1", "2"] + (7...12).map(String.init), "the new ones are all still there")
        try await relay.stop()
    }
}
