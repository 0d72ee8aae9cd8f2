import NIOCore
import NIOEmbedded
import Synchronization
import Testing
@testable import PushRelay

extension PollWaiters {
    /// Sleeps rather than yields: a full test run once spun on `Task.yield()` here for minutes, the wait it awaited
    /// never getting a thread of the starved cooperative pool.
    func untilOneWaits() async {
        let end = ContinuousClock.now + .seconds(20)
        while waitingCount == 0, ContinuousClock.now < end { try? await Task.sleep(for: .milliseconds(1)) }
    }

    /// The wait as a test awaits it.
    func wait(_ ticket: Ticket, until deadline: ContinuousClock.Instant, connection: (any Channel)? = nil) async -> Outcome {
        await withCheckedContinuation { continuation in
            wait(ticket, until: deadline, connection: connection) { continuation.resume(returning: $0) }
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
        await waiters.untilOneWaits()
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
        await waiters.untilOneWaits()
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
        await waiters.untilOneWaits()
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

    @Test func closingTheConnectionEndsTheWait() async throws {
        let waiters = PollWaiters()
        let connection = NIOAsyncTestingChannel()
        let first = waiters.begin(deviceID: "d")
        // A poll that ended earlier on the same connection is not woken again by its closing.
        waiters.notify(deviceID: "d")
        #expect(await waiters.wait(first, until: later(), connection: connection) == .notified)
        waiters.end(first)

        let second = waiters.begin(deviceID: "d")
        async let outcome = waiters.wait(second, until: later(), connection: connection)
        await waiters.untilOneWaits()
        try await connection.close()
        #expect(await outcome == .clientGone)
        #expect(waiters.waitingCount == 0)
    }

    /// Synchronous, on one thread: an EmbeddedChannel's closed future calls back at once, inside `wait`.
    @Test func aConnectionThatClosedBeforeItsPollWaitsEndsTheWaitAtOnce() throws {
        let waiters = PollWaiters()
        let connection = EmbeddedChannel()
        try connection.close().wait()
        connection.embeddedEventLoop.run()
        let outcome = Mutex<PollWaiters.Outcome?>(nil)
        let ticket = waiters.begin(deviceID: "d")
        waiters.wait(ticket, until: later(), connection: connection) { ended in outcome.withLock { $0 = ended } }
        #expect(outcome.withLock { $0 } == .clientGone)
        #expect(waiters.waitingCount == 0)
    }

    @Test func theDeadlineEndsTheWaitOnTime() async {
        let waiters = PollWaiters()
        let ticket = waiters.begin(deviceID: "d")
        let clock = ContinuousClock()
        let start = clock.now
        #expect(await waiters.wait(ticket, until: start + .milliseconds(200)) == .timedOut)
        #expect(clock.now - start >= .milliseconds(195))
    }
}
