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
        await withTaskGroup(of: Void.self) { group in
            group.addTask { for task in running { _ = await task.value } }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }
}
