import Foundation
import PushAgentKit
import Synchronization

/// A flow the test answers by hand, as a user would: it records each start and cancellation and waits for `answer`.
final class ManualFlow: StepUpFlow {
    private struct State {
        var started = 0
        var cancelled = 0
        var challenges: [StepUpChallenge] = []
        var waiting: [Int: CheckedContinuation<StepUpToken, any Error>] = [:]
        var answer: Result<StepUpToken, any Error>?
    }

    private let state = Mutex(State())

    var started: Int { state.withLock { $0.started } }
    var cancelled: Int { state.withLock { $0.cancelled } }
    var challenges: [StepUpChallenge] { state.withLock { $0.challenges } }

    func token(for challenge: StepUpChallenge) async throws -> StepUpToken {
        let id = state.withLock { state in
            state.started += 1
            state.challenges.append(challenge)
            return state.started
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let now: Result<StepUpToken, any Error>? = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if let answer = state.answer { return answer }
                    state.waiting[id] = continuation
                    return nil
                }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            let continuation = state.withLock { state in
                state.cancelled += 1
                return state.waiting.removeValue(forKey: id)
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Ends every flow, running or still to start, with `result`.
    func answer(_ result: Result<StepUpToken, any Error>) {
        let waiting = state.withLock { state in
            state.answer = result
            defer { state.waiting.removeAll() }
            return Array(state.waiting.values)
        }
        for continuation in waiting { continuation.resume(with: result) }
    }
}

/// A flow that answers at once.
struct ImmediateFlow: StepUpFlow {
    let result: @Sendable () throws -> StepUpToken

    func token(for challenge: StepUpChallenge) async throws -> StepUpToken { try result() }
}

/// What the denying user said, as the flow reports it.
struct Denied: Error, Equatable {
    var by: String
}

/// Polls `condition` until it holds; fails the test after `timeout` (robust on a loaded machine: no fixed sleeps).
func eventually(_ what: String, timeout: Duration = .seconds(20), _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while true {
        let last = ContinuousClock.now >= deadline  // the last look starts after the deadline (a starved test)
        if try await condition() { return }
        if last { throw TimedOut(what: what) }
        try await Task.sleep(for: .milliseconds(20))
    }
}

struct TimedOut: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out waiting until \(what)" }
}
