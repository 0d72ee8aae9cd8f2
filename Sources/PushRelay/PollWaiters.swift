/// Wakes long-polls. Each device has at most one poll in progress (a newer poll supersedes the older one);
/// a send resumes the waiting poll's continuation directly, so a wake costs no polling and no delay.
actor PollWaiters {
    enum Outcome: Sendable, Equatable {
        case notified, superseded, timedOut, shuttingDown
    }

    struct Ticket: Sendable {
        let deviceID: String
        fileprivate let serial: UInt64
    }

    private struct Slot {
        let serial: UInt64
        /// A send that arrived after `begin` but before `wait`: the poll's database read may have missed it.
        var notifiedBeforeWait = false
        var continuation: CheckedContinuation<Outcome, Never>?
        var timer: Task<Void, Never>?
    }

    private var slots: [String: Slot] = [:]
    private var lastSerial: UInt64 = 0
    private var isShuttingDown = false

    var waitingCount: Int { slots.values.count { $0.continuation != nil } }

    func hasPoll(deviceID: String) -> Bool { slots[deviceID] != nil }

    /// Call before reading the device's messages, so that a send racing with the read is not lost.
    func begin(deviceID: String) -> Ticket {
        lastSerial += 1
        if let older = slots.removeValue(forKey: deviceID) { Self.finish(older, .superseded) }
        slots[deviceID] = Slot(serial: lastSerial)
        return Ticket(deviceID: deviceID, serial: lastSerial)
    }

    func wait(_ ticket: Ticket, until deadline: ContinuousClock.Instant) async -> Outcome {
        guard var slot = slots[ticket.deviceID], slot.serial == ticket.serial else { return .superseded }
        if isShuttingDown { return .shuttingDown }
        if slot.notifiedBeforeWait {
            slots[ticket.deviceID]?.notifiedBeforeWait = false
            return .notified
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard !Task.isCancelled else { return continuation.resume(returning: .shuttingDown) }
                slot.continuation = continuation
                slot.timer = Task {
                    guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
                    self.resume(ticket, with: .timedOut)
                }
                slots[ticket.deviceID] = slot
            }
        } onCancel: {
            Task { await self.resume(ticket, with: .shuttingDown) }
        }
    }

    func end(_ ticket: Ticket) {
        guard let slot = slots[ticket.deviceID], slot.serial == ticket.serial else { return }
        slots[ticket.deviceID] = nil
        Self.finish(slot, .superseded)
    }

    func notify(deviceID: String) {
        if slots[deviceID]?.continuation != nil {
            resume(deviceID: deviceID, with: .notified)
        } else {
            slots[deviceID]?.notifiedBeforeWait = true
        }
    }

    /// Ends a poll in progress, e.g. because its device was deleted.
    func dismiss(deviceID: String) {
        if let slot = slots.removeValue(forKey: deviceID) { Self.finish(slot, .superseded) }
    }

    /// Ends every waiting poll and makes later waits return at once, so that graceful shutdown does not
    /// sit out the long-polls.
    func shutdown() {
        isShuttingDown = true
        for deviceID in slots.keys { resume(deviceID: deviceID, with: .shuttingDown) }
    }

    private func resume(_ ticket: Ticket, with outcome: Outcome) {
        guard slots[ticket.deviceID]?.serial == ticket.serial else { return }
        resume(deviceID: ticket.deviceID, with: outcome)
    }

    private func resume(deviceID: String, with outcome: Outcome) {
        guard var slot = slots[deviceID], let continuation = slot.continuation else { return }
        slot.continuation = nil
        slot.timer?.cancel()
        slot.timer = nil
        slots[deviceID] = slot
        continuation.resume(returning: outcome)
    }

    private static func finish(_ slot: Slot, _ outcome: Outcome) {
        slot.timer?.cancel()
        slot.continuation?.resume(returning: outcome)
    }
}
