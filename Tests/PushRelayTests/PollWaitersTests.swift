import Testing
@testable import PushRelay

@Suite("Poll waiters")
struct PollWaitersTests {
    private func later(_ duration: Duration = .seconds(10)) -> ContinuousClock.Instant { .now + duration }

    @Test func notifyWakesTheWaitingPoll() async {
        let waiters = PollWaiters()
        let ticket = await waiters.begin(deviceID: "d")
        async let outcome = waiters.wait(ticket, until: later())
        while await waiters.waitingCount == 0 { await Task.yield() }
        await waiters.notify(deviceID: "d")
        #expect(await outcome == .notified)
        #expect(await waiters.waitingCount == 0)
    }

    @Test func sendBetweenReadAndWaitIsNotLost() async {
        let waiters = PollWaiters()
        let ticket = await waiters.begin(deviceID: "d")
        await waiters.notify(deviceID: "d")
        #expect(await waiters.wait(ticket, until: later()) == .notified)
    }

    @Test func notifyForOtherDevicesIsIgnored() async {
        let waiters = PollWaiters()
        let ticket = await waiters.begin(deviceID: "d")
        await waiters.notify(deviceID: "e")
        #expect(await waiters.wait(ticket, until: later(.milliseconds(50))) == .timedOut)
    }

    @Test func newerPollSupersedesOlder() async {
        let waiters = PollWaiters()
        let older = await waiters.begin(deviceID: "d")
        async let outcome = waiters.wait(older, until: later())
        while await waiters.waitingCount == 0 { await Task.yield() }
        let newer = await waiters.begin(deviceID: "d")
        #expect(await outcome == .superseded)
        // A poll superseded before it started waiting does not wait at all.
        #expect(await waiters.wait(older, until: later()) == .superseded)
        await waiters.notify(deviceID: "d")
        #expect(await waiters.wait(newer, until: later()) == .notified)
    }

    @Test func shutdownEndsWaitsNowAndLater() async {
        let waiters = PollWaiters()
        let ticket = await waiters.begin(deviceID: "d")
        async let outcome = waiters.wait(ticket, until: later())
        while await waiters.waitingCount == 0 { await Task.yield() }
        await waiters.shutdown()
        #expect(await outcome == .shuttingDown)
        let next = await waiters.begin(deviceID: "e")
        #expect(await waiters.wait(next, until: later()) == .shuttingDown)
    }

    @Test func cancellationEndsTheWait() async {
        let waiters = PollWaiters()
        let ticket = await waiters.begin(deviceID: "d")
        let task = Task { await waiters.wait(ticket, until: later()) }
        while await waiters.waitingCount == 0 { await Task.yield() }
        task.cancel()
        #expect(await task.value == .shuttingDown)
    }

    @Test func dismissAndEndReleaseTheDevice() async {
        let waiters = PollWaiters()
        let ticket = await waiters.begin(deviceID: "d")
        #expect(await waiters.hasPoll(deviceID: "d"))
        await waiters.dismiss(deviceID: "d")
        #expect(await !waiters.hasPoll(deviceID: "d"))
        #expect(await waiters.wait(ticket, until: later()) == .superseded)

        let second = await waiters.begin(deviceID: "d")
        await waiters.end(second)
        #expect(await !waiters.hasPoll(deviceID: "d"))
    }
}
