import Synchronization

/// The highest seq handed to each device whose `delivered_seq` mark has not yet committed: polls answer without
/// waiting for the disk and leave the mark to the next group commit, so the device's next poll, acknowledging what
/// it was handed, may come first and must not be taken for a cursor ahead of the relay. A mark lost in a crash only
/// makes that next poll start over from the queue (`cursor_ahead`), which loses nothing.
final class PendingDeliveredMarks: Sendable {
    private let marks = Mutex<[String: Int64]>([:])

    func mark(deviceID: String) -> Int64? {
        marks.withLock { $0[deviceID] }
    }

    func raise(deviceID: String, to seq: Int64) {
        marks.withLock { $0[deviceID] = max($0[deviceID] ?? 0, seq) }
    }

    /// Once the mark is on disk; a later poll's higher mark stays until its own commit.
    func committed(deviceID: String, seq: Int64) {
        marks.withLock { marks in
            if marks[deviceID] == seq { marks[deviceID] = nil }
        }
    }

    func forget(deviceID: String) {
        marks.withLock { $0[deviceID] = nil }
    }
}
