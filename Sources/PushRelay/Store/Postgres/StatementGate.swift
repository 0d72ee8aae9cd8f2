import PostgresNIO
import Synchronization

/// Tells a change that failed before its statement went to PostgreSQL (nothing stored: a 503 may say so) from one
/// that failed after, with no answer (the deadline passed, or the connection died during the statement or its
/// commit: it may be stored). Whether it went out is settled once, under a lock, against the deadline: a statement
/// whose deadline passed while it waited for a connection is never sent.
final class StatementGate: Sendable {
    private enum State { case waiting, sent, abandoned }

    private let state = Mutex(State.waiting)

    /// The statement went out and no answer came back.
    struct Lost: Error {
        var underlying: any Error
    }

    /// With the connection in hand, just before the statement goes out; throws `StoreDeadline.Passed` when the
    /// deadline came first.
    func send() throws {
        let sends = state.withLock { state in
            guard state == .waiting else { return false }
            state = .sent
            return true
        }
        if !sends { throw StoreDeadline.Passed() }
    }

    /// `error` as the caller must read it: `Lost` when the statement went out and the failure leaves its outcome
    /// unknown. A server's error is not such a failure: the statement failed, and took its transaction with it.
    func outcome(of error: any Error) -> any Error {
        let sent = state.withLock { state in
            if state == .waiting { state = .abandoned }
            return state == .sent
        }
        guard sent, Self.leavesOutcomeUnknown(error) else { return error }
        return Lost(underlying: error)
    }

    private static func leavesOutcomeUnknown(_ error: any Error) -> Bool {
        if error is StoreDeadline.Passed || error is CancellationError { return true }
        guard let error = PostgresSchema.unwrapped(error) as? PSQLError else { return false }
        return error.code != .server && error.isTransient
    }
}
