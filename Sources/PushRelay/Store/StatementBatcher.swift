import Synchronization

/// Requests that arrive while a batch is in the database wait and go together in the next one: on PostgreSQL dozens
/// of sends (or polls) then share one statement, one commit and one WAL flush, on SQLite dozens of polls one read
/// transaction and one hand-off to a reader, instead of paying each their own. Idle, a request leaves at once, alone:
/// there is no window to wait for.
///
/// The batcher alone answers its callers, each by its deadline (`deadline` after it arrived), so that an answer of
/// "not stored" is true: a request still waiting at its deadline is answered `StoreDeadline.Passed` there and then,
/// and taken out, so it never enters a batch; a batch is given its earliest request's deadline, not one of its own,
/// and its outcome is every request's. A caller that raced its own timer against `submit` would answer 503 for a
/// request that could still be stored after.
final class StatementBatcher<Item: Sendable, Outcome: Sendable>: Sendable {
    private struct Waiting {
        let item: Item
        let deadline: ContinuousClock.Instant
        let continuation: CheckedContinuation<Outcome, any Error>
    }

    private struct State {
        /// In arrival order, which is deadline order.
        var pending: [Waiting] = []
        var running = false
        /// Whether a task is sleeping until the oldest pending request's deadline.
        var expiring = false

        /// Takes out the requests whose deadline has come, to be answered.
        mutating func takeExpired(at now: ContinuousClock.Instant) -> [Waiting] {
            let due = pending.prefix { $0.deadline <= now }.count
            defer { pending.removeFirst(due) }
            return Array(pending.prefix(due))
        }
    }

    /// Runs a batch in one statement and returns one outcome per item, in order; its failure is every item's. It must
    /// end by the deadline it is given, and say then whether the batch may have been stored.
    typealias Run = @Sendable (_ items: [Item], _ deadline: ContinuousClock.Instant) async throws -> [Outcome]

    private let state = Mutex(State())
    private let largest: Int
    private let deadline: Duration
    private let run: Run

    /// A batch holds at most `largest` items.
    init(largest: Int, deadline: Duration, run: @escaping Run) {
        self.largest = largest
        self.deadline = deadline
        self.run = run
    }

    func submit(_ item: Item) async throws -> Outcome {
        let deadline = ContinuousClock.now + deadline
        let runsAlone = state.withLock { state in
            defer { state.running = true }
            return !state.running
        }
        guard runsAlone else {
            return try await withCheckedThrowingContinuation { continuation in
                let (starts, expires) = state.withLock { state in
                    state.pending.append(Waiting(item: item, deadline: deadline, continuation: continuation))
                    defer {
                        state.running = true
                        state.expiring = true
                    }
                    return (!state.running, !state.expiring)
                }
                if starts { Task { await runUntilNothingIsPending() } }
                if expires { Task { await expireUntilNothingIsPending() } }
            }
        }
        // Idle: the caller runs its own batch of one, with no hand-off to another task; what arrived meanwhile goes
        // next, in a task of its own.
        let outcome: Result<[Outcome], any Error>
        do { outcome = .success(try await run([item], deadline)) } catch { outcome = .failure(error) }
        let more = state.withLock { state in
            state.running = !state.pending.isEmpty
            return state.running
        }
        if more { Task { await runUntilNothingIsPending() } }
        return try outcome.get()[0]
    }

    private func runUntilNothingIsPending() async {
        while let batch = nextBatch() {
            let deadline = batch.lazy.map(\.deadline).min()!
            do {
                let outcomes = try await run(batch.map(\.item), deadline)
                for (waiting, outcome) in zip(batch, outcomes) { waiting.continuation.resume(returning: outcome) }
            } catch {
                for waiting in batch { waiting.continuation.resume(throwing: error) }
            }
        }
    }

    /// Nil once nothing is pending, which ends the run. A request whose deadline came before its expiry task woke
    /// is answered here, as that task would.
    private func nextBatch() -> [Waiting]? {
        let now = ContinuousClock.now
        let (batch, expired) = state.withLock { state in
            let expired = state.takeExpired(at: now)
            let taken = Array(state.pending.prefix(largest))
            state.pending.removeFirst(taken.count)
            state.running = !taken.isEmpty
            return (taken, expired)
        }
        for waiting in expired { waiting.continuation.resume(throwing: StoreDeadline.Passed()) }
        return batch.isEmpty ? nil : batch
    }

    /// One task at a time sleeps until the oldest pending request's deadline and answers those whose deadline has
    /// come; it ends once nothing is pending. One timer for the queue, not one per request: under load thousands of
    /// requests a second wait here a millisecond each.
    private func expireUntilNothingIsPending() async {
        while true {
            let now = ContinuousClock.now
            let (expired, next) = state.withLock { state in
                let expired = state.takeExpired(at: now)
                state.expiring = !state.pending.isEmpty
                return (expired, state.pending.first?.deadline)
            }
            for waiting in expired { waiting.continuation.resume(throwing: StoreDeadline.Passed()) }
            guard let next else { return }
            try? await Task.sleep(until: next, clock: .continuous)
        }
    }
}
