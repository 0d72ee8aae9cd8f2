import Synchronization

/// An upper bound on each device's undelivered messages, so that a send need not count its device's queue every
/// time (a scan of the whole queue, the costliest part of a send to a device that is not polling). Only inserts
/// raise a device's number; acknowledgements, expiry, collapsing and rolled-back transactions only lower the true
/// count, which leaves the number an overestimate. The queue is counted again only when the number reaches the limit.
final class QueueBounds: Sendable {
    private let estimates = Mutex<[String: Int]>([:])

    /// Whether the device's queue has room for one more message.
    func admits(deviceID: String, limit: Int, count: () throws -> Int) rethrows -> Bool {
        if let estimate = estimates.withLock({ $0[deviceID] }), estimate < limit { return true }
        let queued = try count()
        estimates.withLock { $0[deviceID] = queued }
        return queued < limit
    }

    func inserted(deviceID: String) {
        estimates.withLock { $0[deviceID, default: 0] += 1 }
    }

    func forget(deviceID: String) {
        estimates.withLock { $0[deviceID] = nil }
    }
}
