@testable import PushRelay
import Synchronization
import Testing

struct WakeAnnouncerTests {
    @Test func announcementsDuringASendGoTogetherInTheNextAndNoneIsLost() async throws {
        let batches = Mutex<[[String]]>([])
        let (firstStarted, startedSignal) = AsyncStream<Void>.makeStream()
        let (release, releaseSignal) = AsyncStream<Void>.makeStream()
        let announcer = WakeAnnouncer { deviceIDs in
            let isFirst = batches.withLock { $0.append(deviceIDs.sorted()); return $0.count == 1 }
            if isFirst {
                startedSignal.yield()
                for await _ in release { break }
            }
        }
        announcer.announce(deviceID: "a")
        for await _ in firstStarted { break }
        for id in ["b", "c", "b", "d"] { announcer.announce(deviceID: id) }
        releaseSignal.yield()
        try await waitUntil { batches.withLock { $0.count } == 2 }
        #expect(batches.withLock { $0 } == [["a"], ["b", "c", "d"]])

        announcer.announce(deviceID: "e")
        try await waitUntil { batches.withLock { $0.count } == 3 }
        #expect(batches.withLock { $0.last } == ["e"], "idle again: the next announcement leaves on its own")
    }

    private func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<500 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
        #expect(condition())
    }
}
