import Synchronization

/// Requests that arrive while a batch is in the database wait and go together in the next one: on PostgreSQL dozens
/// of sends (or polls) then share one statement, one commit and one WAL flush, on SQLite dozens of polls one read
/// transaction and one hand-off to a reader, instead of paying each their own. Idle, a request leaves at once, alone:
/// there is no window to wait for.
///
/// A request that waited past the batcher's deadline before its batch left is dropped: it has been answered 503
/// already, and a send stored now would repeat the sender's retry.
final class StatementBatcher<Item: Sendable, Outcome: Sendable>: Sendable {
    private struct Waiting {
        let item: Item
        let arrived: ContinuousClock.Instant
        let continuation: CheckedContinuation<Outcome, any Error>
    }

    private struct State {
        var pending: [Waiting] = []
        var running = false
    }

    private let state = Mutex(State())
    private let largest: Int
    private let deadline: Duration
    private let run: @Sendable ([Item]) async throws -> [Outcome]

    /// `run` runs a batch in one statement and returns one outcome per item, in order; its failure is every item's. A batch holds at most `largest` items.
    init(largest: Int, deadline: Duration, run: @escaping @Sendable ([Item]) async throws -> [Outcome]) {
        self.largest = largest
        self.deadline = deadline
        self.run = run
    }

    func submit(_ item: Item) async throws -> Outcome {
        let runsAlone = state.withLock { state in
            defer { state.running = true }
            return !state.running
        }
        guard runsAlone else {
            return try await withCheckedThrowingContinuation { continuation in
                let starts = state.withLock { state in
                    state.pending.append(Waiting(item: item, arrived: .now, continuation: continuation))
                    defer { state.running = true }
                    return !state.running
                }
                if starts { Task { await runUntilNothingIsPending() } }
            }
        }
        // Idle: the caller runs its own batch of one, with no hand-off to another task; what arrived meanwhile goes
        // next, in a task of its own.
        let outcome: Result<[Outcome], any Error>
        do { outcome = .success(try await run([item])) } catch { outcome = .failure(error) }
        let more = state.withLock { state in
            state.running = !state.pending.isEmpty
            return state.running
        }
        if more { Task { await runUntilNothingIsPending() } }
        return try outcome.get()[0]
    }

    private func runUntilNothingIsPending() async {
        while let batch = nextBatch() {
            do {
                let outcomes = try await run(batch.map(\.item))
                for (waiting, outcome) in zip(batch, outcomes) { waiting.continuation.resume(returning: outcome) }
            } catch {
                for waiting in batch { waiting.continuation.resume(throwing: error) }
            }
        }
    }

    /// Nil once nothing is pending, which ends the run.
    private func nextBatch() -> [Waiting]? {
        let oldest = ContinuousClock.now - deadline
        var batch: [Waiting] = []
        var expired: [Waiting] = []
        state.withLock { state in
            while batch.isEmpty, !state.pending.isEmpty {
                let taken = state.pending.prefix(largest)
                state.pending.removeFirst(taken.count)
                for waiting in taken {
                    if waiting.arrived < oldest { expired.append(waiting) } else { batch.append(waiting) }
                }
            }
            state.running = !batch.isEmpty
        }
        for waiting in expired { waiting.continuation.resume(throwing: StoreDeadline.Passed()) }
        return batch.isEmpty ? nil : batch
    }
}
