import Foundation
import PushAgentCore
import Synchronization

/// Answers being sent, so SIGTERM can let them finish (bounded) before the daemon exits.
final class InFlightAnswers: Sendable {
    private let tasks = Mutex<[UUID: Task<Approval, Never>]>([:])

    func start(_ work: @escaping @Sendable () async -> Approval) -> Task<Approval, Never> {
        let id = UUID()
        let task = Task {
            let result = await work()
            _ = self.tasks.withLock { $0.removeValue(forKey: id) }
            return result
        }
        tasks.withLock { $0[id] = task }
        return task
    }

    var count: Int { tasks.withLock { $0.count } }

    /// Waits for running answers up to `timeout`; what is still running then is resumed at the next start.
    func drain(timeout: Duration) async {
        let running = tasks.withLock { Array($0.values) }
        guard !running.isEmpty else { return }
        _ = await Self.results(of: running, within: timeout)
    }

    /// The answers' outcomes if all of them end within `timeout`, else nil. Unstructured on purpose: a task group
    /// waits for every child before it returns, and an answer being retried may run until its approval expires.
    static func results(of answers: [Task<Approval, Never>], within timeout: Duration) async -> [Approval]? {
        await withCheckedContinuation { continuation in
            let first = FirstResult(continuation)
            Task {
                var outcomes: [Approval] = []
                for answer in answers { outcomes.append(await answer.value) }
                first.resume(returning: outcomes)
            }
            Task {
                try? await Task.sleep(for: timeout)
                first.resume(returning: nil)
            }
        }
    }
}

/// Resumes a continuation once, with whichever result comes first.
private final class FirstResult<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, Never>?>

    init(_ continuation: CheckedContinuation<Value, Never>) { self.continuation = Mutex(continuation) }

    func resume(returning value: Value) { continuation.withLock { $0.take() }?.resume(returning: value) }
}
