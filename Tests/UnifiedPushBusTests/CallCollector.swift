import ClusterHarness
import Foundation
import Synchronization
import UnifiedPushBus

/// Reads a distributor's `calls` as the distributor logic would, for the test to take one at a time.
final class CallCollector: Sendable {
    private struct State {
        var calls: [DistributorCall] = []
        var ended = false
    }

    private let state = Mutex(State())

    init(_ bus: DistributorBus) {
        Task { [self] in
            for await call in bus.calls { state.withLock { $0.calls.append(call) } }
            state.withLock { $0.ended = true }
        }
    }

    /// The calls stream finished.
    var ended: Bool { state.withLock { $0.ended } }
    var waiting: Int { state.withLock { $0.calls.count } }

    /// The oldest call not yet taken; taking it hands it over (a call dropped unanswered is answered for the test).
    func next(timeout: Duration = .seconds(60)) async throws -> DistributorCall {
        var taken: DistributorCall?
        try await eventually("an app's call reaches the distributor", timeout: timeout) {
            taken = state.withLock { $0.calls.isEmpty ? nil : $0.calls.removeFirst() }
            return taken != nil
        }
        return taken!
    }

    func nextRegister() async throws -> (RegisterCall, @Sendable (RegistrationFailure?) -> Void) {
        guard case .register(let call, let answer) = try await next() else { throw HarnessError("expected a Register") }
        return (call, answer)
    }

    func nextUnregister() async throws -> (UnregisterCall, @Sendable () -> Void) {
        guard case .unregister(let call, let answer) = try await next() else { throw HarnessError("expected an Unregister") }
        return (call, answer)
    }
}
