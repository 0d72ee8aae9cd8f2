import Logging
@testable import PushAgentDaemon
import Testing

/// The run of failures a connection is in: what counts as the same failure again, and when the backoff starts over.
struct ConnectionHealthTests {
    static func health() -> ConnectionHealth {
        ConnectionHealth(name: "test", backoff: Backoff(initial: 1, maximum: 8), logger: Logger(label: "test"), metadata: [:])
    }

    /// curl's message for a refused connection says how long it took; a repeat that took 1 ms instead of 0 is still a
    /// repeat (before, it began a new run, with a journal line of its own).
    @Test func failuresThatDifferOnlyInTheirNumbersAreOneRun() {
        let health = Self.health()
        _ = health.failed("Failed to connect to 127.0.0.1 port 9 after 0 ms: Couldn't connect to server", backoff: Backoff(initial: 1, maximum: 8))
        _ = health.failed("Failed to connect to 127.0.0.1 port 9 after 12 ms: Couldn't connect to server", backoff: Backoff(initial: 1, maximum: 8))
        #expect(health.failures == 2)
        _ = health.failed("the relay answered HTTP 502: bad gateway", backoff: Backoff(initial: 1, maximum: 8))
        #expect(health.failures == 1, "another failure begins a run of its own")
    }

    @Test func theBackoffGrowsUntilASuccessAndStartsOverAfterIt() {
        let health = Self.health()
        let delays = (0..<4).map { _ in health.failed("down", backoff: Backoff(initial: 1, maximum: 8)) }
        #expect(delays[3] >= 4, "the fourth wait is of 4-8 s: \(delays)")
        health.succeeded()
        #expect(health.failures == 0)
        #expect(health.failed("down", backoff: Backoff(initial: 1, maximum: 8)) <= 1)
    }

    /// A login alone does not start the backoff over: a peer that accepts and closes at once is tried less often.
    @Test func aLoginThatDoesNotHoldLeavesTheBackoffGrowing() {
        let health = Self.health()
        var delays: [Double] = []
        for _ in 0..<4 {
            health.loggedIn("connected")
            delays.append(health.failed("closed", backoff: Backoff(initial: 1, maximum: 8)))
        }
        #expect(delays[3] >= 4, "\(delays)")
    }
}
