import Synchronization

/// What polls wrote that has not yet committed, per device: polls answer without waiting for the disk, and their
/// acknowledgements and delivered marks ride with the next group commit (`GroupCommit.writeLater`). Until then
/// the relay answers as if they had committed: the device's next poll must not be taken for a cursor ahead of the
/// relay, nor be handed (or counted as acknowledging) what it already acknowledged. A crash loses them, which only
/// delivers those messages again, or makes the device's next poll start over (`cursor_ahead`).
final class PendingPollWrites: Sendable {
    struct Marks: Equatable {
        /// The device acknowledged every message up to here.
        var acknowledged: Int64 = 0
        /// The relay handed the device every message up to here.
        var delivered: Int64 = 0
    }

    private let devices = Mutex<[String: Marks]>([:])

    func marks(deviceID: String) -> Marks {
        devices.withLock { $0[deviceID] ?? Marks() }
    }

    func raise(deviceID: String, to marks: Marks) {
        devices.withLock { devices in
            let pending = devices[deviceID] ?? Marks()
            devices[deviceID] = Marks(
                acknowledged: max(pending.acknowledged, marks.acknowledged), delivered: max(pending.delivered, marks.delivered))
        }
    }

    /// Once `marks` are on disk; what a later poll raised meanwhile stays until its own commit.
    func committed(deviceID: String, _ marks: Marks) {
        devices.withLock { devices in
            guard var pending = devices[deviceID] else { return }
            if pending.acknowledged <= marks.acknowledged { pending.acknowledged = 0 }
            if pending.delivered <= marks.delivered { pending.delivered = 0 }
            devices[deviceID] = pending == Marks() ? nil : pending
        }
    }

    func forget(deviceID: String) {
        devices.withLock { $0[deviceID] = nil }
    }
}
