import Synchronization

/// Sends the wake-ups of committed changes to the other instances, many per statement: while one batch is on its
/// way, the devices announced meanwhile wait and go together in the next. PostgreSQL commits notifying transactions
/// one at a time under a database-wide lock, so under load a batch takes that lock once for dozens of sends; idle,
/// a wake-up leaves at once. Announcing does not wait: the change is committed already, and a lost wake-up only
/// delays delivery to polls on other instances until their next read.
final class WakeAnnouncer: Sendable {
    private struct State {
        var pending: Set<String> = []
        var sending = false
    }

    private let state = Mutex(State())
    private let send: @Sendable ([String]) async -> Void

    /// `send` notifies for every device it is given; it reports its own failures.
    init(send: @escaping @Sendable ([String]) async -> Void) {
        self.send = send
    }

    func announce(deviceID: String) {
        let startsSending = state.withLock { state in
            state.pending.insert(deviceID)
            defer { state.sending = true }
            return !state.sending
        }
        if startsSending { Task { await sendUntilNothingIsPending() } }
    }

    private func sendUntilNothingIsPending() async {
        while true {
            let batch = state.withLock { state in
                defer { state.pending = [] }
                state.sending = !state.pending.isEmpty
                return Array(state.pending)
            }
            guard !batch.isEmpty else { return }
            await send(batch)
        }
    }
}
