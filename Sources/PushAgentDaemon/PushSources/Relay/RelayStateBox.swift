import ControlWire
import Foundation
import Synchronization

/// The relay connection's current state, read by `/v1/status` and the systemd STATUS line.
final class RelayStateBox: Sendable {
    private let state: Mutex<RelayStatus>
    private let lastDelivery = Mutex<Date?>(nil)

    init(url: String) { state = Mutex(RelayStatus(startingWith: url)) }

    var current: RelayStatus { state.withLock { $0 } }

    /// When a poll last brought messages.
    var lastDeliveryAt: Date? { lastDelivery.withLock { $0 } }

    func delivered(at time: Date) { lastDelivery.withLock { $0 = time } }

    /// Updates the state; returns the new one if it changed in a way worth an event.
    func update(_ change: (inout RelayStatus) -> Void) -> RelayStatus? {
        state.withLock { status in
            let before = status
            change(&status)
            let worthAnEvent = before.state != status.state || before.lastError != status.lastError
                || before.resyncedAt != status.resyncedAt
            return worthAnEvent ? status : nil
        }
    }
}
