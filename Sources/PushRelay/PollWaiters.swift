import NIOCore
import NIOPosix
import Synchronization

/// Wakes long-polls. Each device has at most one poll in progress (a newer poll supersedes the older one);
/// a send calls the waiting poll's callback directly, so a wake costs no polling and no delay. Everything
/// is under one lock rather than in an actor: a send or a timer wakes a poll from whatever thread it is on,
/// without hopping to another executor first.
///
/// A waiting poll costs its callback and a timer on an event loop, not a task of its own; one whose client
/// has gone (its connection closed) ends at once, so it does not hold memory until its deadline.
final class PollWaiters: Sendable {
    enum Outcome: Sendable, Equatable {
        case notified, superseded, timedOut, shuttingDown, clientGone
    }

    struct Ticket: Sendable {
        let deviceID: String
        fileprivate let serial: UInt64
    }

    private struct Slot {
        let serial: UInt64
        /// A send that arrived after `begin` but before `wait`: the poll's database read may have missed it.
        var notifiedBeforeWait = false
        var onOutcome: (@Sendable (Outcome) -> Void)?
        var timer: Scheduled<Void>?
    }

    private struct State {
        var slots: [String: Slot] = [:]
        var lastSerial: UInt64 = 0
        var isShuttingDown = false
        /// Connections whose closing is watched (one callback each, for their whole life), with the poll waiting on
        /// each, if any.
        var pollByConnection: [ObjectIdentifier: Ticket?] = [:]
    }

    private let state = Mutex(State())
    private let timers: any EventLoopGroup

    init(timers: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.timers = timers
    }

    var waitingCount: Int { state.withLock { $0.slots.values.count { $0.onOutcome != nil } } }

    func hasPoll(deviceID: String) -> Bool { state.withLock { $0.slots[deviceID] != nil } }

    /// Call before reading the device's messages, so that a send racing with the read is not lost.
    func begin(deviceID: String) -> Ticket {
        let (ticket, older) = state.withLock { state in
            state.lastSerial += 1
            let older = state.slots.removeValue(forKey: deviceID)
            state.slots[deviceID] = Slot(serial: state.lastSerial)
            return (Ticket(deviceID: deviceID, serial: state.lastSerial), older)
        }
        older.map { Self.finish($0, .superseded) }
        return ticket
    }

    /// Waits for a send to the device, a newer poll, the deadline, shutdown, or (given its connection) the client
    /// closing the connection, then calls `onOutcome` once, from whatever thread ended the wait: no task is suspended
    /// meanwhile.
    func wait(_ ticket: Ticket, until deadline: ContinuousClock.Instant, connection: (any Channel)? = nil,
              onOutcome: @escaping @Sendable (Outcome) -> Void) {
        let immediate = state.withLock { state -> Outcome? in
            guard var slot = state.slots[ticket.deviceID], slot.serial == ticket.serial else { return .superseded }
            if state.isShuttingDown { return .shuttingDown }
            if slot.notifiedBeforeWait {
                state.slots[ticket.deviceID]?.notifiedBeforeWait = false
                return .notified
            }
            slot.onOutcome = onOutcome
            slot.timer = timers.next().scheduleTask(in: .nanoseconds(Self.nanoseconds(until: deadline))) {
                self.resume(ticket, with: .timedOut)
            }
            state.slots[ticket.deviceID] = slot
            return nil
        }
        if let immediate { return onOutcome(immediate) }
        // Watched only once the wait is in place: a connection that closed already calls back at once, and its
        // callback must find the wait to end.
        if let connection { watch(connection, for: ticket) }
    }

    func end(_ ticket: Ticket) {
        let slot = state.withLock { state -> Slot? in
            guard let slot = state.slots[ticket.deviceID], slot.serial == ticket.serial else { return nil }
            state.slots[ticket.deviceID] = nil
            return slot
        }
        slot.map { Self.finish($0, .superseded) }
    }

    func notify(deviceID: String) {
        let woken = state.withLock { state -> Waiting? in
            guard state.slots[deviceID]?.onOutcome != nil else {
                state.slots[deviceID]?.notifiedBeforeWait = true
                return nil
            }
            return Self.takeWaiting(deviceID: deviceID, from: &state)
        }
        woken?.end(.notified)
    }

    /// Wakes every poll, each to read its device's messages again: for when sends may have gone unannounced (another
    /// instance's, while the wake-up channel was down).
    /// (A poll that begins after the snapshot reads the queue as it is then.)
    func notifyAll() {
        for deviceID in state.withLock({ Array($0.slots.keys) }) { notify(deviceID: deviceID) }
    }

    /// Ends a poll in progress, e.g. because its device was deleted.
    func dismiss(deviceID: String) {
        state.withLock { $0.slots.removeValue(forKey: deviceID) }.map { Self.finish($0, .superseded) }
    }

    /// Ends every waiting poll and makes later waits return at once, so that graceful shutdown does not
    /// sit out the long-polls.
    func shutdown() {
        let woken = state.withLock { state in
            state.isShuttingDown = true
            return Array(state.slots.keys).compactMap { Self.takeWaiting(deviceID: $0, from: &state) }
        }
        for waiting in woken { waiting.end(.shuttingDown) }
    }

    private func watch(_ connection: any Channel, for ticket: Ticket) {
        let id = ObjectIdentifier(connection)
        let isNew = state.withLock { state in
            let isNew = state.pollByConnection[id] == nil
            state.pollByConnection[id] = .some(ticket)
            return isNew
        }
        guard isNew else { return }
        connection.closeFuture.whenComplete { _ in
            let waiting = self.state.withLock { $0.pollByConnection.removeValue(forKey: id) }
            if let ticket = waiting ?? nil { self.resume(ticket, with: .clientGone) }
        }
    }

    private func resume(_ ticket: Ticket, with outcome: Outcome) {
        let woken = state.withLock { state in
            state.slots[ticket.deviceID]?.serial == ticket.serial
                ? Self.takeWaiting(deviceID: ticket.deviceID, from: &state) : nil
        }
        woken?.end(outcome)
    }

    /// A wait taken out of its slot. Callbacks are called and timers cancelled outside the lock: either may run
    /// code that takes it again.
    private struct Waiting {
        let onOutcome: @Sendable (Outcome) -> Void
        let timer: Scheduled<Void>?

        func end(_ outcome: Outcome) {
            timer?.cancel()
            onOutcome(outcome)
        }
    }

    private static func takeWaiting(deviceID: String, from state: inout State) -> Waiting? {
        guard var slot = state.slots[deviceID], let onOutcome = slot.onOutcome else { return nil }
        let waiting = Waiting(onOutcome: onOutcome, timer: slot.timer)
        slot.onOutcome = nil
        slot.timer = nil
        state.slots[deviceID] = slot
        return waiting
    }

    private static func finish(_ slot: Slot, _ outcome: Outcome) {
        slot.timer?.cancel()
        slot.onOutcome?(outcome)
    }

    private static func nanoseconds(until deadline: ContinuousClock.Instant) -> Int64 {
        let remaining = ContinuousClock.now.duration(to: deadline).components
        return max(0, remaining.seconds * 1_000_000_000 + remaining.attoseconds / 1_000_000_000)
    }
}
