import Logging
import Synchronization

/// The database did not answer within the deadline, or failed in a way a retry may cure (connection lost, server
/// restarting, too many connections), before the request's change went to it: the request gets a retryable 503 with
/// `Retry-After`, never a 200, and nothing of it is stored, so the sender's retry stores it once.
struct StoreUnavailable: Error, CustomStringConvertible {
    /// What the relay was doing, as in "storing a message".
    var operation: String
    var reason: String

    /// Long enough for a database restart or failover to make progress, short enough that a sender's retry does not
    /// add much latency to a blip.
    static let retryAfterSeconds = 2

    var description: String { "\(operation) failed: \(reason)" }
}

/// A change went to the database and no answer came back (the deadline passed, or the connection died, while the
/// statement and its commit were under way): it may or may not be stored, which a 503's "not stored, retry" would
/// misstate. The request gets a 500 that says so; a sender that retries may deliver it twice.
struct StoreOutcomeUnknown: Error, CustomStringConvertible {
    var operation: String
    var reason: String

    var description: String { "\(operation): the outcome is unknown: \(reason)" }
}

/// A database operation failed in a way a retry will not cure: the request gets a 500, and the log gets this, which
/// says what the relay was doing, the server's SQLSTATE, message and statement, never a parameter's value.
struct StoreFailure: Error, CustomStringConvertible {
    var operation: String
    var reason: String

    var description: String { "\(operation) failed: \(reason)" }
}

/// The longest one database operation may take before its request is answered 503: a request waiting for a
/// connection while the database is away, or a query on a connection that died without a word, ends here.
enum StoreDeadline {
    static let operation = Duration.seconds(5)

    /// `operation`'s result, or `Passed` once the limit has passed, whatever the operation does: postgres-nio
    /// cannot cancel a query in flight, so the operation is cancelled (which ends a wait for a connection) and left
    /// to end by itself in its own task.
    static func run<Result: Sendable>(
        within limit: Duration, _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        try await run(until: .now + limit, body)
    }

    static func run<Result: Sendable>(
        until deadline: ContinuousClock.Instant, _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let race = Race<Result>()
        return try await withCheckedThrowingContinuation { continuation in
            race.start(continuation, deadline: deadline, body)
        }
    }

    struct Passed: Error {}

    /// Resumes the caller once: with the body's outcome or, at the limit, with `Passed`. Whichever comes second
    /// finds the continuation gone and only tidies up (the timer is cancelled, or the body is).
    private final class Race<Result: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Result, any Error>?
            var body: Task<Void, Never>?
            var timer: Task<Void, Never>?
        }

        private let state = Mutex(State())

        func start(_ continuation: CheckedContinuation<Result, any Error>, deadline: ContinuousClock.Instant,
                   _ body: @escaping @Sendable () async throws -> Result) {
            state.withLock { $0.continuation = continuation }
            let timer = Task {
                guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
                self.finish(.failure(Passed()))?.cancel()
            }
            let work = Task {
                let outcome: Swift.Result<Result, any Error>
                do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
                _ = self.finish(outcome)
            }
            let finished = state.withLock { state in
                state.timer = timer
                state.body = work
                return state.continuation == nil
            }
            // The body won before its timer was known.
            if finished { timer.cancel() }
        }

        /// Resumes the caller if nobody has; returns the body's task when the timer won, to be cancelled.
        private func finish(_ outcome: Swift.Result<Result, any Error>) -> Task<Void, Never>? {
            let (continuation, body, timer) = state.withLock { state in
                defer { state.continuation = nil }
                return (state.continuation, state.body, state.timer)
            }
            guard let continuation else { return nil }
            continuation.resume(with: outcome)
            if case .failure(let error) = outcome, error is Passed { return body }
            timer?.cancel()
            return nil
        }
    }
}

/// A database outage as an operator wants to read it: the first failure with its reason, then at most one line every
/// `interval` saying how many operations failed meanwhile, and one line once the database has answered for `interval`
/// without a failure (so that intermittent failures make one outage, not a line pair each). Requests refused meanwhile
/// say nothing of their own: thousands a second would flood the journal.
final class OutageLog: Sendable {
    private struct State {
        var since: ContinuousClock.Instant
        var lastLine: ContinuousClock.Instant
        var lastFailure: ContinuousClock.Instant
        var failed = 1
        var failedSinceLine = 0
    }

    static let interval = Duration.seconds(10)
    private let outage = Mutex<State?>(nil)
    /// Read on every success: the lock is taken only during an outage.
    private let down = Atomic(false)
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    func failed(_ error: StoreUnavailable) {
        let now = ContinuousClock.now
        let line: String? = outage.withLock { outage in
            guard var state = outage else {
                outage = State(since: now, lastLine: now, lastFailure: now)
                down.store(true, ordering: .relaxed)
                return "database unavailable: \(error); requests are answered 503 with Retry-After until it is back"
            }
            defer { outage = state }
            state.failed += 1
            state.failedSinceLine += 1
            state.lastFailure = now
            guard now - state.lastLine >= Self.interval else { return nil }
            defer {
                state.lastLine = now
                state.failedSinceLine = 0
            }
            return "database still unavailable after \((now - state.since).components.seconds) s (\(state.failedSinceLine) more operations failed): \(error)"
        }
        if let line { logger.warning("\(line)") }
    }

    func succeeded() {
        guard down.load(ordering: .relaxed) else { return }
        let now = ContinuousClock.now
        let ended: State? = outage.withLock { outage in
            guard let state = outage, now - state.lastFailure >= Self.interval else { return nil }
            outage = nil
            down.store(false, ordering: .relaxed)
            return state
        }
        guard let ended else { return }
        logger.notice("database answers again: the outage lasted \((ended.lastFailure - ended.since).components.seconds) s, \(ended.failed) operations failed")
    }
}
