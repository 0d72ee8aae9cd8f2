import RelayWire
import Synchronization

/// The newest message committed to each device since the relay started, and the seq of the one committed to it
/// before (nil: none since the start). Seqs grow across all devices, so every other message the device may have is
/// at or below that earlier seq: a poll woken by the send, whose cursor is there or beyond, needs exactly this
/// message and takes it from memory rather than from a read (a query and a hand-off to a reader less per delivered
/// message). This holds only while this process is the database's one writer, which `RelayServer`'s lock ensures.
///
/// Recorded after the commit, in commit order, on the writer's thread (in `SQLiteRelayStore.enqueue`'s
/// `whenCommitted`, before the send is told), so before the send wakes the poll. A poll's read that finds nothing
/// beyond its cursor tells the same of a device's first send since the start (`nothingLive(beyond:)`): the first
/// message to an idle device is taken from memory too.
///
/// It also keeps how far the device acknowledged and what it was handed, so that the poll acknowledging the message
/// it was just handed is answered from memory too (`acknowledge(after:deviceID:now:)`): that poll is one per delivered
/// message, and reading for it cost a task, a hand-off to a reader and three queries.
final class RecentSends: Sendable {
    private struct Entry {
        /// At or above the seq of every message the device has.
        var seq: Int64
        /// At or above the seq of every message the device has but `message`.
        var previous: Int64?
        /// Dropped once the device acknowledged it, once it expired, or when the payloads kept reach their budget:
        /// an idle device costs its seqs, not its payload.
        var kept: KeptMessage?
        /// When the newest message expires (kept without its payload too).
        var expiresAt = Int64.max
        /// Every message of the device at or below it is deleted or about to be (an acknowledgement waiting for the
        /// next commit); nil: not known.
        var acknowledgedThrough: Int64?
        /// At or below the device's delivered mark (what it was handed, committed or waiting for the next commit).
        var handedOut: Int64 = 0
    }

    /// Boxed: most entries keep no message (an idle device's), and one inline would double every entry's size.
    private final class KeptMessage: Sendable {
        let message: RelayMessage
        /// What it counts against the payload budget.
        let bytes: Int

        init(_ message: RelayMessage, bytes: Int) {
            self.message = message
            self.bytes = bytes
        }
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var payloadBytes = 0
        /// Counts the entries removed (evicted or forgotten): a read that began before one of them cannot vouch for
        /// sends recorded in an entry that is gone.
        var removals: UInt64 = 0

        mutating func dropPayload(of deviceID: String) {
            payloadBytes -= entries[deviceID]?.kept?.bytes ?? 0
            entries[deviceID]?.kept = nil
        }

        mutating func raiseHandedOut(of deviceID: String, to seq: Int64) {
            if let handedOut = entries[deviceID]?.handedOut, handedOut < seq { entries[deviceID]?.handedOut = seq }
        }

        mutating func remove(_ deviceID: String) {
            payloadBytes -= entries.removeValue(forKey: deviceID)?.kept?.bytes ?? 0
            removals += 1
        }
    }

    private let state = Mutex(State())
    /// Devices beyond it push out another device's entry, whose woken polls then read.
    private let capacity: Int
    /// Payloads beyond it are not kept: their polls read.
    private let payloadBudget: Int

    init(capacity: Int = 100_000, payloadBudget: Int = 16 << 20) {
        self.capacity = capacity
        self.payloadBudget = payloadBudget
    }

    /// Taken before a poll's read, handed to `nothingLive` after it.
    var removals: UInt64 { state.withLock { $0.removals } }

    func committed(_ message: RelayMessage, deviceID: String) {
        let size = Self.payloadBytes(of: message)
        state.withLock { state in
            let earlier = state.entries[deviceID]
            state.dropPayload(of: deviceID)
            if earlier == nil, state.entries.count >= capacity, let any = state.entries.keys.first { state.remove(any) }
            let fits = state.payloadBytes + size <= payloadBudget
            state.entries[deviceID] = Entry(
                seq: message.seq, previous: earlier?.seq, kept: fits ? KeptMessage(message, bytes: size) : nil,
                expiresAt: message.expiresAt, acknowledgedThrough: earlier?.acknowledgedThrough,
                handedOut: earlier?.handedOut ?? 0)
            if fits { state.payloadBytes += size }
        }
    }

    /// What a poll woken by a send, with cursor `after`, is to be handed: nil when only a read can tell.
    func messages(after: Int64, deviceID: String, now: Int64) -> [RelayMessage]? {
        state.withLock { state in
            guard let entry = state.entries[deviceID] else { return nil }
            if after >= entry.seq { return [] }
            guard let previous = entry.previous, previous <= after, let message = entry.kept?.message else { return nil }
            guard message.expiresAt > now else {
                state.dropPayload(of: deviceID)
                return nil
            }
            state.raiseHandedOut(of: deviceID, to: message.seq)
            return [message]
        }
    }

    /// How many messages a poll with cursor `after` acknowledges, when memory tells it and nothing is live beyond
    /// `after`: every message but the newest was acknowledged before, the cursor is within what the device was handed
    /// (not ahead), and the newest, if the cursor acknowledges it now, has not expired (an expired one may be gone
    /// without an acknowledgement). Nil when only a read can tell; otherwise the acknowledgement is taken as made.
    func acknowledge(after: Int64, deviceID: String, now: Int64) -> Int? {
        state.withLock { state in
            guard let entry = state.entries[deviceID], let previous = entry.previous,
                  let acknowledgedThrough = entry.acknowledgedThrough, previous <= acknowledgedThrough,
                  after >= entry.seq, after <= entry.handedOut else { return nil }
            let acknowledgesNewest = entry.seq > acknowledgedThrough
            if acknowledgesNewest, entry.expiresAt <= now { return nil }
            state.dropPayload(of: deviceID)
            state.entries[deviceID]?.acknowledgedThrough = max(acknowledgedThrough, after)
            return acknowledgesNewest ? 1 : 0
        }
    }

    /// A poll read with cursor `after` (an acknowledgement of everything up to it) left the device's delivered mark at
    /// `handedOut` (the mark it read, or the last message it handed out, whichever is higher).
    func polled(after: Int64, handedOut: Int64, deviceID: String) {
        state.withLock { state in
            guard let entry = state.entries[deviceID] else { return }
            if entry.seq <= after { state.dropPayload(of: deviceID) }
            state.entries[deviceID]?.acknowledgedThrough = max(entry.acknowledgedThrough ?? after, after)
            state.raiseHandedOut(of: deviceID, to: handedOut)
        }
    }

    /// A woken poll's read handed the device messages up to `seq`.
    func handedOut(upTo seq: Int64, deviceID: String) {
        state.withLock { $0.raiseHandedOut(of: deviceID, to: seq) }
    }

    /// A read at cursor `after`, begun when `removals` was `removalsBefore`, found no live message beyond it: any
    /// the device has, but those committed since the read began (recorded before or after this), is at or below
    /// `after`.
    func nothingLive(beyond after: Int64, deviceID: String, removalsBefore: UInt64) {
        state.withLock { state in
            // An entry removed meanwhile may have held a send the read did not see.
            guard state.removals == removalsBefore else { return }
            guard let entry = state.entries[deviceID] else {
                if state.entries.count >= capacity, let any = state.entries.keys.first { state.remove(any) }
                state.entries[deviceID] = Entry(seq: after, previous: after)
                return
            }
            // The device's first send since the start, committed after the read began (or the read would have found
            // it): what came before it is what the read saw.
            if entry.previous == nil, entry.seq > after { state.entries[deviceID]?.previous = after }
        }
    }

    func forget(deviceID: String) {
        state.withLock { $0.remove(deviceID) }
    }

    private static func payloadBytes(of message: RelayMessage) -> Int {
        let fields = message.data.merging(message.notification ?? [:]) { first, _ in first }
        return 256 + message.id.utf8.count + fields.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
    }
}
