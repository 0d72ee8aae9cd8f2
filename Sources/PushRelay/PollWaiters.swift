import NIOCore
import NIOPosix
import Synchronization

/// Wakes long-polls. Each device has at most one poll in progress (a newer poll supersedes the older one);
/// a send calls the waiting poll's callback directly, so a wake costs no polling and no delay. Everything
/// is under one lock rather than in an actor: a send or a timer wakes a poll from whatever thread it is on,
/// without hopping to another executor first.
///
/// A waiting poll costs its callback and an entry in `PollDeadlines`, not a task or a timer of its own; one whose
/// client has gone ends at once (`clientGone`), so it does not hold memory until its deadline.
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
        /// The poll's client left while no wait was in place (its poll was between reads): the next wait ends at once.
        var clientGone = false
        var onOutcome: Waiting?
        var deadline: PollDeadlines.Tick?
    }

    private struct State {
        var slots: [String: Slot] = [:]
        var lastSerial: UInt64 = 0
        var isShuttingDown = false
        var deadlines = PollDeadlines()
        /// The one timer for every poll's deadline: set for a tick at or before the earliest that has polls, whenever
        /// one has. (A timer replaced by an earlier one but already on its way to fire finds it is not this one.)
        var timer: (tick: PollDeadlines.Tick, scheduled: Scheduled<Void>)?
    }

    private let state = Mutex(State())
    private let timerLoop: any EventLoop

    init(timers: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        timerLoop = timers.next()
    }

    var waitingCount: Int { state.withLock { $0.deadlines.count } }

    func hasPoll(deviceID: String) -> Bool { state.withLock { $0.slots[deviceID] != nil } }

    /// Call before reading the device's messages, so that a send racing with the read is not lost.
    func begin(deviceID: String) -> Ticket {
        let (ticket, older) = state.withLock { state in
            state.lastSerial += 1
            let older = Self.remove(deviceID: deviceID, from: &state)
            state.slots[deviceID] = Slot(serial: state.lastSerial)
            return (Ticket(deviceID: deviceID, serial: state.lastSerial), older)
        }
        older?.onOutcome?(.superseded)
        return ticket
    }

    /// Waits for a send to the device, a newer poll, the deadline (up to a `PollDeadlines` tick after it), shutdown,
    /// or `clientGone`, then calls `onOutcome` once, from whatever thread ended the wait: no task is suspended meanwhile.
    func wait(_ ticket: Ticket, until deadline: ContinuousClock.Instant, onOutcome: @escaping @Sendable (Outcome) -> Void) {
        let (immediate, replacedTimer) = state.withLock { state -> (Outcome?, Scheduled<Void>?) in
            guard var slot = state.slots[ticket.deviceID], slot.serial == ticket.serial else { return (.superseded, nil) }
            if state.isShuttingDown { return (.shuttingDown, nil) }
            if slot.clientGone { return (.clientGone, nil) }
            if slot.notifiedBeforeWait {
                state.slots[ticket.deviceID]?.notifiedBeforeWait = false
                return (.notified, nil)
            }
            let tick = state.deadlines.insert(ticket.deviceID, at: deadline)
            slot.onOutcome = onOutcome
            slot.deadline = tick
            state.slots[ticket.deviceID] = slot
            return (nil, rescheduleTimer(&state, for: tick))
        }
        replacedTimer?.cancel()
        if let immediate { onOutcome(immediate) }
    }

    /// The poll's client has gone (its connection closed): a wait in place ends now, a later one at once.
    func clientGone(_ ticket: Ticket) {
        let woken = state.withLock { state -> Waiting? in
            guard state.slots[ticket.deviceID]?.serial == ticket.serial else { return nil }
            state.slots[ticket.deviceID]?.clientGone = true
            return Self.takeWaiting(deviceID: ticket.deviceID, from: &state)
        }
        woken?(.clientGone)
    }

    func end(_ ticket: Ticket) {
        let slot = state.withLock { state -> Slot? in
            guard state.slots[ticket.deviceID]?.serial == ticket.serial else { return nil }
            return Self.remove(deviceID: ticket.deviceID, from: &state)
        }
        slot?.onOutcome?(.superseded)
    }

    func notify(deviceID: String) {
        let woken = state.withLock { state -> Waiting? in
            guard state.slots[deviceID]?.onOutcome != nil else {
                state.slots[deviceID]?.notifiedBeforeWait = true
                return nil
            }
            return Self.takeWaiting(deviceID: deviceID, from: &state)
        }
        woken?(.notified)
    }

    /// Wakes every poll, each to read its device's messages again: for when sends may have gone unannounced (another
    /// instance's, while the wake-up channel was down).
    /// (A poll that begins after the snapshot reads the queue as it is then.)
    func notifyAll() {
        for deviceID in state.withLock({ Array($0.slots.keys) }) { notify(deviceID: deviceID) }
    }

    /// Ends a poll in progress, e.g. because its device was deleted.
    func dismiss(deviceID: String) {
        state.withLock { Self.remove(deviceID: deviceID, from: &$0) }?.onOutcome?(.superseded)
    }

    /// Ends every waiting poll and makes later waits return at once, so that graceful shutdown does not
    /// sit out the long-polls.
    func shutdown() {
        let woken = state.withLock { state in
            state.isShuttingDown = true
            return Array(state.slots.keys).compactMap { Self.takeWaiting(deviceID: $0, from: &state) }
        }
        for waiting in woken { waiting(.shuttingDown) }
    }

    /// Sets the timer for `tick` if none is set for that tick or earlier; returns the timer it replaces, to cancel
    /// outside the lock.
    private func rescheduleTimer(_ state: inout State, for tick: PollDeadlines.Tick) -> Scheduled<Void>? {
        if let timer = state.timer, timer.tick <= tick { return nil }
        let replaced = state.timer?.scheduled
        let delay = max(0, ContinuousClock.now.duration(to: PollDeadlines.instant(of: tick)).wholeNanoseconds)
        let scheduled = timerLoop.scheduleTask(in: .nanoseconds(delay)) {
            self.endDuePolls(timerTick: tick)
        }
        state.timer = (tick, scheduled)
        return replaced
    }

    /// The timer's work: ends every poll whose deadline has passed, and sets the timer for the next.
    private func endDuePolls(timerTick: PollDeadlines.Tick) {
        let (woken, replacedTimer) = state.withLock { state in
            if state.timer?.tick == timerTick { state.timer = nil }
            let due = state.deadlines.removeDue(now: .now).compactMap { Self.takeWaiting(deviceID: $0, from: &state) }
            return (due, state.deadlines.earliest.flatMap { rescheduleTimer(&state, for: $0) })
        }
        replacedTimer?.cancel()
        for waiting in woken { waiting(.timedOut) }
    }

    /// A wait taken out of its slot: its callback, to call outside the lock (it may run code that takes it again).
    private typealias Waiting = @Sendable (Outcome) -> Void

    private static func takeWaiting(deviceID: String, from state: inout State) -> Waiting? {
        guard var slot = state.slots[deviceID], let onOutcome = slot.onOutcome else { return nil }
        slot.onOutcome = nil
        slot.deadline.map { state.deadlines.remove(deviceID, at: $0) }
        slot.deadline = nil
        state.slots[deviceID] = slot
        return onOutcome
    }

    /// Takes a slot out of the books: its wait, if one is in place, with its deadline.
    private static func remove(deviceID: String, from state: inout State) -> Slot? {
        guard let slot = state.slots.removeValue(forKey: deviceID) else { return nil }
        slot.deadline.map { state.deadlines.remove(deviceID, at: $0) }
        return slot
    }
}
