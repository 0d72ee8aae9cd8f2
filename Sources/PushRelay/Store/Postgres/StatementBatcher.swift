import Synchronization

/// Group commit for a database a round trip away: requests that arrive while a batch is in the database wait and go
/// together in the next one, so under load dozens of sends (or polls) share one statement, one commit and one WAL
/// flush instead of paying each their own. Idle, a request leaves at once, alone: there is no window to wait for.
///
/// A request that waited past `StoreDeadline.operation` before its batch left is dropped: it has been answered 503
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
    private let run: @Sendable ([Item]) async throws -> [Outcome]

    /// `run` runs a batch in one statement and returns one outcome per item, in order; its failure is every item's. A batch holds at most `largest` items.
    init(largest: Int, run: @escaping @Sendable ([Item]) async throws -> [Outcome]) {
        self.largest = largest
        self.run = run
    }

    func submit(_ item: Item) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            let starts = state.withLock { state in
                state.pending.append(Waiting(item: item, arrived: .now, continuation: continuation))
                defer { state.running = true }
                return !state.running
            }
            if starts { Task { await runUntilNothingIsPending() } }
        }
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
        let oldest = ContinuousClock.now - StoreDeadline.operation
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
