import Testing
@testable import PushRelay

@Suite("Poll deadlines")
struct PollDeadlinesTests {
    /// A poll may end up to a tick late, never early.
    @Test func aDeadlineIsFiledUnderTheFirstTickAtOrAfterIt() {
        var deadlines = PollDeadlines()
        let tick50 = PollDeadlines.instant(of: 50)
        #expect(deadlines.insert("on", at: tick50) == 50)
        #expect(deadlines.insert("after", at: tick50 + .nanoseconds(1)) == 51)
        #expect(deadlines.insert("before", at: tick50 - .nanoseconds(1)) == 50)
        #expect(deadlines.count == 3)
        #expect(deadlines.earliest == 50)

        #expect(deadlines.removeDue(now: tick50 - .nanoseconds(1)).isEmpty)
        #expect(Set(deadlines.removeDue(now: tick50)) == ["on", "before"])
        #expect(deadlines.count == 1)
        #expect(deadlines.earliest == 51)
        #expect(deadlines.removeDue(now: PollDeadlines.instant(of: 90)) == ["after"])
        #expect(deadlines.earliest == nil)
    }

    @Test func aDeadlineBeforeTheOriginIsFiledToo() {
        var deadlines = PollDeadlines()
        let tick = deadlines.insert("d", at: PollDeadlines.instant(of: -3) - .milliseconds(30))
        #expect(tick == -3)
        #expect(deadlines.removeDue(now: PollDeadlines.instant(of: -3) - .nanoseconds(1)).isEmpty, "not early")
        #expect(deadlines.removeDue(now: PollDeadlines.instant(of: -3)) == ["d"])
    }

    @Test func aRemovedPollCountsOnceAndLeavesNoTickBehind() {
        var deadlines = PollDeadlines()
        let tick = deadlines.insert("d", at: PollDeadlines.instant(of: 7))
        _ = deadlines.insert("e", at: PollDeadlines.instant(of: 8))
        deadlines.remove("d", at: tick)
        deadlines.remove("d", at: tick)
        #expect(deadlines.count == 1)
        #expect(deadlines.earliest == 8)
        #expect(deadlines.removeDue(now: PollDeadlines.instant(of: 7)).isEmpty)
    }
}
