import Testing
@testable import PushRelay

extension PollWaiters {
    /// Sleeps rather than yields: a full test run once spun on `Task.yield()` here for minutes, the wait it awaited
    /// never getting a thread of the starved cooperative pool.
    func untilWaiting(_ count: Int = 1) async {
        let end = ContinuousClock.now + .seconds(20)
        while waitingCount < count, ContinuousClock.now < end { try? await Task.sleep(for: .milliseconds(1)) }
    }

    /// The wait as a test awaits it.
    func wait(_ ticket: Ticket, until deadline: ContinuousClock.Instant) async -> Outcome {
        await withCheckedContinuation { continuation in
            wait(ticket, until: deadline) { continuation.resume(returning: $0) }
        }
    }
}

@Suite("Poll waiters")
struct PollWaitersTests {
    private func later(_ duration: Duration = .seconds(10)) -> ContinuousClock.Instant { .now + duration }

    @Test func notifyWakesTheWaitingPoll() async {
        let waiters = PollWaiters()
        let ticket = waiters.begin(deviceID: "d")
        async let outcome = waiters.wait(ticket, until: later())
        await waiters.untilWaiting()
        waiters.notify(deviceID: "d")
        #expect(await outcome == .notified)
        #expect(waiters.waitingCount == 0)
    }

    @Test func sendBetweenReadAndWaitIsNotLost() async {
        let waiters = PollWaiters()
        let ticket = waiters.begin(deviceID: "d")
        waiters.notify(deviceID: "d")
        #expect(await waiters.wait(ticket, until: later()) == .notified)
    }

    @Test func notifyForOtherDevicesIsIgnored() async {
        let waiters = PollWaiters()
        let ticket = waiters.begin(deviceID: "d")
        waiters.notify(deviceID: "e")
        #expect(await waiters.wait(ticket, until: later(.milliseconds(50))) == .timedOut)
    }

    @Test func newerPollSupersedesOlder() async {
        let waiters = PollWaiters()
        let older = waiters.begin(deviceID: "d")
        async let outcome = waiters.wait(older, until: later())
        await waiters.untilWaiting()
        let newer = waiters.begin(deviceID: "d")
        #expect(await outcome == .superseded)
        // A poll superseded before it started waiting does not wait at all.
        #expect(await waiters.wait(older, until: later()) == .superseded)
        waiters.notify(deviceID: "d")
        #expect(await waiters.wait(newer, until: later()) == .notified)
    }

    @Test func shutdownEndsWaitsNowAndLater() async {
        let waiters = PollWaiters()
        let ticket = waiters.begin(deviceID: "d")
        async let outcome = waiters.wait(ticket, until: later())
        await waiters.untilWaiting()
        waiters.shutdown()
        #expect(await outcome == .shuttingDown)
        let next = waiters.begin(deviceID: "e")
        #expect(await waiters.wait(next, until: later()) == .shuttingDown)
    }

    @Test func dismissAndEndReleaseTheDevice() async {
        let waiters = PollWaiters()
        let ticket = waiters.begin(deviceID: "d")
        #expect(waiters.hasPoll(deviceID: "d"))
        waiters.dismiss(deviceID: "d")
        #expect(!waiters.hasPoll(deviceID: "d"))
        #expect(await waiters.wait(ticket, until: later()) == .superseded)

        let second = waiters.begin(deviceID: "d")
        waiters.end(second)
        #expect(!waiters.hasPoll(deviceID: "d"))
    }

    @Test func theClientLeavingEndsTheWaitInPlaceOrTheNextAtOnce() async {
        let waiters = PollWaiters()
        let first = waiters.begin(deviceID: "d")
        async let outcome = waiters.wait(first, until: later())
        await waiters.untilWaiting()
        waiters.clientGone(first)
        #expect(await outcome == .clientGone)
        #expect(waiters.waitingCount == 0)

        // Left between two waits (the poll reading again after a wake): the next wait ends at once.
        let second = waiters.begin(deviceID: "d")
        waiters.clientGone(second)
        #expect(await waiters.wait(second, until: later()) == .clientGone)

        // The device's newer poll is another client's.
        let third = waiters.begin(deviceID: "d")
        waiters.clientGone(second)
        waiters.notify(deviceID: "d")
        #expect(await waiters.wait(third, until: later()) == .notified)
    }

    @Test func theDeadlineEndsTheWaitOnTime() async {
        let waiters = PollWaiters()
        let ticket = waiters.begin(deviceID: "d")
        let clock = ContinuousClock()
        let start = clock.now
        #expect(await waiters.wait(ticket, until: start + .milliseconds(200)) == .timedOut)
        #expect(clock.now - start >= .milliseconds(200), "never early")
    }

    /// One timer serves every deadline: a wait ending before those in place sets it earlier, and once it has fired
    /// it is set for the next. A timer left for the longest wait would end all three at once, at 120 s.
    @Test(.timeLimit(.minutes(3))) func eachWaitEndsAtItsOwnDeadline() async {
        let waiters = PollWaiters()
        let start = ContinuousClock.now
        let long = waiters.begin(deviceID: "long")
        async let longOutcome = waiters.wait(long, until: start + .seconds(120))
        await waiters.untilWaiting()
        let middle = waiters.begin(deviceID: "middle")
        async let middleOutcome = waiters.wait(middle, until: start + .seconds(1))
        await waiters.untilWaiting(2)
        let short = waiters.begin(deviceID: "short")
        #expect(await waiters.wait(short, until: start + .milliseconds(200)) == .timedOut)
        #expect(await middleOutcome == .timedOut)
        #expect(ContinuousClock.now - start >= .seconds(1), "never early")
        #expect(waiters.waitingCount == 1, "the longest wait goes on")
        waiters.notify(deviceID: "long")
        #expect(await longOutcome == .notified)
    }
}
