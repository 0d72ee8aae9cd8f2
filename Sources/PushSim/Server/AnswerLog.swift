import Foundation
import ServiceLifecycle

/// Every answer a provider endpoint received, numbered from 1, with long-poll reads: a reader waits (without
/// polling) until an answer past its cursor arrives, its wait ends, its request is cancelled, or the server shuts down.
actor AnswerLog<Answer: Sendable> {
    private enum Wait {
        case started
        case waiting(CheckedContinuation<Void, Never>)
        /// Woken before it started waiting (cancellation can race the registration): it must not wait at all.
        case woken
    }

    private var answers: [(seq: Int, answer: Answer)] = []
    private var waits: [UUID: Wait] = [:]

    /// Records an answer; `make` receives its sequence number.
    func append(_ make: (Int) -> Answer) {
        answers.append((answers.count + 1, make(answers.count + 1)))
        for id in waits.keys { wake(id) }
    }

    func answers(after cursor: Int, wait: Duration) async -> [Answer] {
        if wait > .zero, !answers.contains(where: { $0.seq > cursor }) {
            let id = UUID()
            waits[id] = .started
            let timer = Task { [weak self] in
                guard (try? await Task.sleep(for: wait)) != nil else { return }
                await self?.wake(id)
            }
            await withGracefulShutdownHandler {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        if case .woken? = waits[id] { continuation.resume() } else { waits[id] = .waiting(continuation) }
                    }
                } onCancel: {
                    Task { await self.wake(id) }
                }
            } onGracefulShutdown: {
                Task { await self.wake(id) }
            }
            timer.cancel()
            waits[id] = nil
        }
        return answers.filter { $0.seq > cursor }.map(\.answer)
    }

    private func wake(_ id: UUID) {
        switch waits[id] {
        case .waiting(let continuation)?:
            continuation.resume()
            waits[id] = .woken
        case .started?:
            waits[id] = .woken
        case .woken?, nil:
            break
        }
    }
}
