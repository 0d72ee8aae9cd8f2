import RelayWire
import Synchronization

/// The newest message committed to each device since the relay started, and the seq of the one committed to it
/// before (nil: none since the start). Seqs grow across all devices, so every other message the device may have is
/// at or below that earlier seq: a poll woken by the send, whose cursor is there or beyond, needs exactly this
/// message and takes it from memory rather than from a read (a query and a hand-off to a reader less per delivered
/// message).
///
/// Recorded after the commit, in commit order, on the writer's thread (`GroupCommit.write`'s `afterCommit`), so
/// before the send wakes the poll. A poll's read that finds nothing beyond its cursor tells the same of a device's
/// first send since the start (`nothingLive(beyond:)`): the first message to an idle device is taken from memory too.
final class RecentSends: Sendable {
    private struct Entry {
        /// At or above the seq of every message the device has.
        var seq: Int64
        /// At or above the seq of every message the device has but `message`.
        var previous: Int64?
        /// Dropped once the device acknowledged it: an idle device costs its seqs, not its payload.
        var message: RelayMessage?
    }

    private let entries = Mutex<[String: Entry]>([:])
    /// Devices beyond it push out another device's entry, whose woken polls then read.
    private let capacity: Int

    init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    func committed(_ message: RelayMessage, deviceID: String) {
        entries.withLock { entries in
            let previous = entries[deviceID]?.seq
            if previous == nil, entries.count >= capacity { entries.remove(at: entries.startIndex) }
            entries[deviceID] = Entry(seq: message.seq, previous: previous, message: message)
        }
    }

    /// What a poll woken by a send, with cursor `after`, is to be handed: nil when only a read can tell.
    func messages(after: Int64, deviceID: String, now: Int64) -> [RelayMessage]? {
        entries.withLock { entries in
            guard let entry = entries[deviceID] else { return nil }
            if after >= entry.seq { return [] }
            guard let previous = entry.previous, previous <= after, let message = entry.message, message.expiresAt > now else {
                return nil
            }
            return [message]
        }
    }

    /// A read at cursor `after` found no live message beyond it: any the device has, but those committed since the
    /// read began (recorded before or after this), is at or below `after`.
    func nothingLive(beyond after: Int64, deviceID: String) {
        entries.withLock { entries in
            guard let entry = entries[deviceID] else {
                if entries.count >= capacity { entries.remove(at: entries.startIndex) }
                entries[deviceID] = Entry(seq: after, previous: after)
                return
            }
            // The device's first send since the start, committed after the read began (or the read would have found
            // it): what came before it is what the read saw.
            if entry.previous == nil, entry.seq > after { entries[deviceID]?.previous = after }
        }
    }

    func acknowledged(upTo after: Int64, deviceID: String) {
        entries.withLock { entries in
            if let seq = entries[deviceID]?.seq, seq <= after { entries[deviceID]?.message = nil }
        }
    }

    func forget(deviceID: String) {
        entries.withLock { $0[deviceID] = nil }
    }
}
