@testable import PushRelay
import RelayWire
import Testing

/// Issue 26: a poll woken by a send takes the send's message from memory only when it is provably the only one the
/// poll needs; anything less certain is left to a read (nil).
struct RecentSendsTests {
    private func message(_ seq: Int64, expiresAt: Int64 = 10_000) -> RelayMessage {
        RelayMessage(seq: seq, id: "m\(seq)", data: ["n": "\(seq)"], sentAt: 0, expiresAt: expiresAt)
    }

    @Test func theFirstSendSinceTheStartIsReadUnlessAPollSawTheQueueEmpty() {
        let recent = RecentSends()
        recent.committed(message(7), deviceID: "d")
        #expect(recent.messages(after: 3, deviceID: "d", now: 0) == nil, "seqs 4...6 may be the device's: only a read can tell")
        #expect(recent.messages(after: 7, deviceID: "d", now: 0) == [], "nothing beyond the newest")
        #expect(recent.messages(after: 1, deviceID: "other", now: 0) == nil)

        let seen = RecentSends()
        seen.nothingLive(beyond: 3, deviceID: "d", removalsBefore: seen.removals)
        seen.committed(message(7), deviceID: "d")
        #expect(seen.messages(after: 3, deviceID: "d", now: 0) == [message(7)])
        #expect(seen.messages(after: 2, deviceID: "d", now: 0) == nil, "a cursor behind what the read saw")
    }

    @Test func aSendCommittedWhileTheEmptyReadRanStillCounts() {
        let recent = RecentSends()
        recent.committed(message(9), deviceID: "d")
        recent.nothingLive(beyond: 4, deviceID: "d", removalsBefore: recent.removals)
        #expect(recent.messages(after: 4, deviceID: "d", now: 0) == [message(9)])
        recent.committed(message(12), deviceID: "d")
        recent.nothingLive(beyond: 11, deviceID: "d", removalsBefore: recent.removals)
        #expect(recent.messages(after: 4, deviceID: "d", now: 0) == nil, "9 is the device's too: a later read changes nothing")
        #expect(recent.messages(after: 9, deviceID: "d", now: 0) == [message(12)])
    }

    @Test func onlyTheNewestIsHandedOverAndOnlyWhileItLives() {
        let recent = RecentSends()
        recent.nothingLive(beyond: 0, deviceID: "d", removalsBefore: recent.removals)
        recent.committed(message(5), deviceID: "d")
        recent.committed(message(8, expiresAt: 100), deviceID: "d")
        #expect(recent.messages(after: 0, deviceID: "d", now: 0) == nil, "5 and 8: a read returns both")
        #expect(recent.messages(after: 5, deviceID: "d", now: 0) == [message(8, expiresAt: 100)])
        #expect(recent.messages(after: 5, deviceID: "d", now: 100) == nil, "expired: the read skips it")
        recent.polled(after: 8, handedOut: 8, deviceID: "d")
        #expect(recent.messages(after: 8, deviceID: "d", now: 0) == [])
        #expect(recent.messages(after: 5, deviceID: "d", now: 0) == nil, "its payload went with the acknowledgement")
    }

    @Test func aForgottenOrPushedOutDeviceIsRead() {
        let recent = RecentSends(capacity: 2)
        for device in ["a", "b"] {
            recent.nothingLive(beyond: 0, deviceID: device, removalsBefore: recent.removals)
            recent.committed(message(device == "a" ? 1 : 2), deviceID: device)
        }
        recent.forget(deviceID: "a")
        #expect(recent.messages(after: 0, deviceID: "a", now: 0) == nil)
        recent.nothingLive(beyond: 0, deviceID: "c", removalsBefore: recent.removals)
        recent.nothingLive(beyond: 0, deviceID: "d", removalsBefore: recent.removals)
        let known = ["b", "c", "d"].filter { recent.messages(after: 0, deviceID: $0, now: 0) != nil }
        #expect(known.count == 2, "at most two devices kept: \(known)")
    }

    /// The review's interleaving: a poll's read begins, the device's first send commits, its entry is pushed out by
    /// another device's, a second send commits, and the read comes back empty. The read saw neither send, so it must
    /// not vouch for the first one it never knew of: the woken poll reads, and gets both.
    @Test func aReadThatBeganBeforeAnEntryWasPushedOutVouchesForNothing() {
        let recent = RecentSends(capacity: 1)
        let removals = recent.removals
        recent.committed(message(7), deviceID: "d")
        recent.committed(message(8), deviceID: "other")
        recent.committed(message(9), deviceID: "d")
        recent.nothingLive(beyond: 5, deviceID: "d", removalsBefore: removals)
        #expect(recent.messages(after: 5, deviceID: "d", now: 0) == nil, "7 is the device's too")
    }

    @Test func payloadsBeyondTheBudgetAreRead() {
        let big = RelayMessage(seq: 2, id: "m2", data: ["n": String(repeating: "x", count: 3000)], sentAt: 0, expiresAt: 10_000)
        let recent = RecentSends(payloadBudget: 4000)
        for device in ["a", "b"] { recent.nothingLive(beyond: 0, deviceID: device, removalsBefore: recent.removals) }
        recent.committed(big, deviceID: "a")
        recent.committed(RelayMessage(seq: 3, id: "m3", data: ["n": String(repeating: "y", count: 3000)], sentAt: 0, expiresAt: 10_000), deviceID: "b")
        #expect(recent.messages(after: 0, deviceID: "a", now: 0) == [big])
        #expect(recent.messages(after: 0, deviceID: "b", now: 0) == nil, "over the budget: read")
        recent.polled(after: 2, handedOut: 2, deviceID: "a")
        recent.committed(RelayMessage(seq: 4, id: "m4", data: ["n": "small"], sentAt: 0, expiresAt: 10_000), deviceID: "b")
        #expect(recent.messages(after: 3, deviceID: "b", now: 0)?.map(\.seq) == [4], "the acknowledged payload freed its room")
    }

    /// The poll acknowledging what its device was just handed is answered from memory, counting what it acknowledges
    /// as a read would; whatever memory cannot vouch for is left to a read.
    @Test func thePollAcknowledgingWhatWasHandedIsCountedFromMemory() {
        let recent = RecentSends()
        #expect(recent.acknowledge(after: 0, deviceID: "d", now: 0) == nil, "a device never read")
        recent.nothingLive(beyond: 0, deviceID: "d", removalsBefore: recent.removals)
        recent.polled(after: 0, handedOut: 0, deviceID: "d")
        #expect(recent.acknowledge(after: 0, deviceID: "d", now: 0) == 0)
        recent.committed(message(5), deviceID: "d")
        #expect(recent.acknowledge(after: 0, deviceID: "d", now: 0) == nil, "5 is live beyond the cursor")
        #expect(recent.acknowledge(after: 5, deviceID: "d", now: 0) == nil, "5 was never handed out: a cursor ahead")
        #expect(recent.messages(after: 0, deviceID: "d", now: 0) == [message(5)])
        #expect(recent.acknowledge(after: 6, deviceID: "d", now: 0) == nil, "beyond what was handed out")
        #expect(recent.acknowledge(after: 5, deviceID: "d", now: 0) == 1)
        #expect(recent.acknowledge(after: 5, deviceID: "d", now: 0) == 0, "acknowledged already")
        #expect(recent.messages(after: 0, deviceID: "d", now: 0) == nil, "its payload went with the acknowledgement")
    }

    @Test func twoMessagesHandedInOneBatchAreRead() {
        let recent = RecentSends()
        recent.nothingLive(beyond: 0, deviceID: "d", removalsBefore: recent.removals)
        recent.polled(after: 0, handedOut: 0, deviceID: "d")
        recent.committed(message(5), deviceID: "d")
        recent.committed(message(8), deviceID: "d")
        recent.handedOut(upTo: 8, deviceID: "d")
        #expect(recent.acknowledge(after: 8, deviceID: "d", now: 0) == nil, "5 is unacknowledged too: how many, a read tells")
        recent.polled(after: 8, handedOut: 8, deviceID: "d")
        recent.committed(message(9, expiresAt: 100), deviceID: "d")
        #expect(recent.messages(after: 8, deviceID: "d", now: 0) == [message(9, expiresAt: 100)])
        #expect(recent.acknowledge(after: 9, deviceID: "d", now: 100) == nil, "expired: it may be gone unacknowledged")
        #expect(recent.acknowledge(after: 9, deviceID: "d", now: 99) == 1)
    }

    @Test func aForgottenDeviceAcknowledgesThroughARead() {
        let recent = RecentSends()
        recent.nothingLive(beyond: 0, deviceID: "d", removalsBefore: recent.removals)
        recent.polled(after: 0, handedOut: 0, deviceID: "d")
        recent.committed(message(3), deviceID: "d")
        _ = recent.messages(after: 0, deviceID: "d", now: 0)
        recent.forget(deviceID: "d")
        recent.committed(message(4), deviceID: "d")
        #expect(recent.acknowledge(after: 4, deviceID: "d", now: 0) == nil)
    }
}
