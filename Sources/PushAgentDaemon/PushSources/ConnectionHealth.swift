import Foundation
import Logging
import Synchronization

/// When a connection that keeps failing is tried again, and what the journal says of it (MCS's, the relay's long
/// poll). A login alone proves little (a peer that accepts the login and closes at once would be logged in to again
/// and again): the backoff starts over only once a connection has held for `healthyAfter`. The journal gets one line per change of state
/// (connected, failing for another reason, healthy again) and, while the same failure repeats, a count every
/// `summaryInterval`, not two lines an attempt.
final class ConnectionHealth: Sendable {
    static let healthyAfter: Duration = .seconds(30)
    static let summaryInterval: Duration = .seconds(600)

    private struct Streak {
        var reason: String
        var failures: Int
        var since: Date
        var lastLine: ContinuousClock.Instant
        var failuresSinceLine = 0
    }

    private struct State {
        var backoff: Backoff
        var streak: Streak?
        /// The last connection logged in and ended before it was healthy: its next login is no news.
        var flapping = false
        var loggedIn: ContinuousClock.Instant?
    }

    private let name: String
    private let logger: Logger
    private let metadata: Logger.Metadata
    private let state: Mutex<State>

    init(name: String, backoff: Backoff, logger: Logger, metadata: Logger.Metadata) {
        self.name = name
        self.logger = logger
        self.metadata = metadata
        state = Mutex(State(backoff: backoff))
    }

    /// A login succeeded: said in the journal unless the connection before it did the same and did not hold.
    func loggedIn(_ line: String) {
        let flapping = state.withLock { state in
            state.loggedIn = .now
            return state.flapping
        }
        logger.log(level: flapping ? .debug : .notice, "\(name): \(line)", metadata: metadata)
    }

    /// The connection has held since its login for `healthyAfter`: the backoff starts over, and a run of failures
    /// before it is closed with a line.
    func heldUp() {
        let held = state.withLock { state in
            state.loggedIn.map { ContinuousClock.now - $0 >= Self.healthyAfter } ?? false
        }
        if held { succeeded(saying: "the connection has held for \(Self.healthyAfter.components.seconds) s") }
    }

    /// A success that proves the peer works (the relay answered a poll): the backoff starts over, and the run of
    /// failures before it ends, said in a line beginning with `saying` (nil: the caller says it in its own words).
    func succeeded(saying: String? = nil) {
        let ended = state.withLock { state -> Streak? in
            state.backoff.reset()
            state.flapping = false
            defer { state.streak = nil }
            return state.streak
        }
        guard let ended, let saying else { return }
        logger.notice("\(name): \(saying), after \(ended.failures) failed attempt(s) since \(ended.since.formatted(.iso8601)) (the last: \(ended.reason))",
                      metadata: metadata)
    }

    /// A connection failed (or ended): returns how long to wait before the next one, having said so in the journal
    /// if this is news or a periodic count is due.
    func failed(_ reason: String, backoff reconfigured: Backoff) -> Double {
        heldUp()
        let (delay, line) = state.withLock { state -> (Double, String?) in
            if state.backoff.attempt == 0 {
                // A run of failures begins: a reload's timings apply from here.
                state.backoff = reconfigured
            }
            state.flapping = state.loggedIn != nil
            state.loggedIn = nil
            let delay = state.backoff.next()
            let retry = "reconnecting in \(String(format: "%.1f", delay)) s"
            guard var streak = state.streak, Self.sameKind(streak.reason, reason) else {
                state.streak = Streak(reason: reason, failures: 1, since: Date(), lastLine: .now)
                return (delay, "\(reason); \(retry)")
            }
            streak.failures += 1
            streak.failuresSinceLine += 1
            var line: String?
            if ContinuousClock.now - streak.lastLine >= Self.summaryInterval {
                line = "\(reason), again: \(streak.failuresSinceLine) more time(s) in the last \(Self.summaryInterval.components.seconds / 60) min, \(streak.failures) since \(streak.since.formatted(.iso8601)); \(retry)"
                streak.lastLine = .now
                streak.failuresSinceLine = 0
            }
            state.streak = streak
            return (delay, line)
        }
        if let line { logger.warning("\(name): \(line)", metadata: metadata) }
        return delay
    }

    /// Whether two failures are the same but for their numbers: curl's "Failed to connect … after 0 ms" says 1 ms
    /// the next time, and a repeat is a repeat.
    static func sameKind(_ one: String, _ other: String) -> Bool {
        func shape(_ text: String) -> [Unicode.Scalar] {
            var shaped: [Unicode.Scalar] = []
            for scalar in text.unicodeScalars {
                let isDigit = ("0"..."9").contains(scalar)
                if isDigit, shaped.last == "#" { continue }
                shaped.append(isDigit ? "#" : scalar)
            }
            return shaped
        }
        return shape(one) == shape(other)
    }

    /// The connection ended for a reason that is not a failure (a wake from suspend): the next one starts at once.
    func endedOnPurpose() {
        state.withLock { $0.loggedIn = nil }
    }

    /// Failures in the current run (0 once a connection held).
    var failures: Int { state.withLock { $0.streak?.failures ?? 0 } }
}
