import Synchronization

/// One flow per challenge key however many requests wait on it (the single-flight pattern). The flow runs in its own
/// task: a waiter that is cancelled leaves alone, and the flow is cancelled only when no one waits any more.
final class SharedFlows: Sendable {
    private struct Running {
        let id: Int
        var task: Task<Void, Never>?
        var waiters: [Int: CheckedContinuation<StepUpToken, any Error>]
    }

    private struct Finished {
        let token: StepUpToken
        let at: ContinuousClock.Instant
    }

    private struct State {
        var running: [String: Running] = [:]
        var finished: [String: Finished] = [:]
        var nextId = 0

        mutating func makeId() -> Int {
            nextId += 1
            return nextId
        }
    }

    private let state = Mutex(State())
    private let flow: any StepUpFlow
    private let reuse: Duration

    /// `reuse`: how long a token stays good for requests that were sent before its flow finished (their challenge
    /// crossed the flow's end): they retry with it instead of asking the user again.
    init(flow: any StepUpFlow, reuse: Duration) {
        self.flow = flow
        self.reuse = reuse
    }

    /// The token for `challenge`, from a new flow, the one already running for its key, or one that finished after
    /// `sentAt` (when the challenged request left).
    func token(for challenge: StepUpChallenge, sentAt: ContinuousClock.Instant) async throws -> StepUpToken {
        let key = challenge.key
        let waiter = state.withLock { $0.makeId() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                enum Next { case done(Result<StepUpToken, any Error>), wait, start(Int) }
                let now = ContinuousClock.now
                let next: Next = state.withLock { state in
                    // Checked under the lock, so a cancellation either comes before (seen here) or finds the waiter.
                    if Task.isCancelled { return .done(.failure(CancellationError())) }
                    state.finished = state.finished.filter { now - $0.value.at < reuse }
                    if let finished = state.finished[key], finished.at > sentAt { return .done(.success(finished.token)) }
                    if state.running[key] != nil {
                        state.running[key]?.waiters[waiter] = continuation
                        return .wait
                    }
                    let id = state.makeId()
                    state.running[key] = Running(id: id, task: nil, waiters: [waiter: continuation])
                    return .start(id)
                }
                switch next {
                case .done(let result): continuation.resume(with: result)
                case .wait: break
                case .start(let id): start(challenge, id: id)
                }
            }
        } onCancel: {
            leave(key, waiter: waiter)
        }
    }

    /// Requests waiting for a flow now, over all keys.
    var waiting: Int { state.withLock { $0.running.values.reduce(0) { $0 + $1.waiters.count } } }

    private func start(_ challenge: StepUpChallenge, id: Int) {
        let key = challenge.key
        let task = Task {
            let result: Result<StepUpToken, any Error>
            do { result = .success(try await flow.token(for: challenge)) } catch { result = .failure(error) }
            finish(key, id: id, result)
        }
        let abandoned = state.withLock { state in
            guard state.running[key]?.id == id else { return true }
            state.running[key]?.task = task
            return false
        }
        // Every waiter left before the task was recorded: nobody is left to cancel it but us.
        if abandoned { task.cancel() }
    }

    private func finish(_ key: String, id: Int, _ result: Result<StepUpToken, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<StepUpToken, any Error>] in
            guard let running = state.running[key], running.id == id else { return [] }
            state.running[key] = nil
            if case .success(let token) = result { state.finished[key] = Finished(token: token, at: .now) }
            return Array(running.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    private func leave(_ key: String, waiter: Int) {
        let (continuation, orphaned) = state.withLock { state -> (CheckedContinuation<StepUpToken, any Error>?, Task<Void, Never>?) in
            guard let continuation = state.running[key]?.waiters.removeValue(forKey: waiter) else { return (nil, nil) }
            guard state.running[key]?.waiters.isEmpty == true else { return (continuation, nil) }
            let task = state.running[key]?.task
            state.running[key] = nil
            return (continuation, task)
        }
        continuation?.resume(throwing: CancellationError())
        orphaned?.cancel()
    }
}
