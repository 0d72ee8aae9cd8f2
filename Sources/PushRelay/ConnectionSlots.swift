import ConnectionGuards
import Foundation
import Logging
import NIOCore
import Synchronization

/// Bounds the relay's open connections below its file-descriptor limit, and when full makes room by closing the
/// connection that has been awaiting a request the longest (idle, or trickling a slowloris request), never one
/// being answered (a waiting long-poll). A flood of slow connections then only ever pushes out its own oldest, and a
/// well-behaved client that sends its request at once is served in its place. A bound that stops accepting instead
/// (Hummingbird's `MaximumAvailableConnections`) queues every new client behind the flood.
///
/// It also closes them on graceful shutdown (`quiesce`): it knows every open connection already, where NIO's
/// quiescing helper would keep a set of them of its own, memory each connection holds for its whole life.
final class ConnectionSlots: ConnectionTracker {
    /// File descriptors kept for what is not a connection: the listener, SQLite and its journal, the event loops.
    static let reservedDescriptors = 64

    let limit: Int
    private let logger: Logger
    private let state = Mutex(State())

    fileprivate struct State {
        var open: [ObjectIdentifier: Slot] = [:]
        /// Connections in the order they started awaiting a request, oldest first. An entry is stale when its
        /// connection stopped waiting (or waited again, later) since: `Slot.waitingTicket` tells.
        var waitingOrder: [(id: ObjectIdentifier, ticket: UInt64)] = []
        var waitingHead = 0
        var nextTicket: UInt64 = 0
        var refusals = RefusalLog<Bound>()
        /// Shutting down: each connection is asked to close once it has answered, and `drained` resumed when none is open.
        var isQuiescing = false
        var drained: CheckedContinuation<Void, Never>?
    }

    /// What refuses a connection: the one bound of the whole relay.
    fileprivate enum Bound: Hashable, Sendable { case maxConnections }

    fileprivate struct Slot {
        let channel: any Channel
        var waitingTicket: UInt64?
    }

    init(limit: Int, logger: Logger) {
        self.limit = max(1, limit)
        self.logger = logger
    }

    /// `configured` when set, else as many as the open-file limit leaves room for.
    static func limit(configured: Int?, openFiles: OpenFileLimit = .current) -> Int {
        configured ?? max(16, openFiles.soft - reservedDescriptors)
    }

    var openCount: Int { state.withLock { $0.open.count } }

    func opened(_ channel: any Channel) -> Bool {
        let (admitted, evicted, line, quiescing) = state.withLock {
            state -> (Bool, (any Channel)?, RefusalLog<Bound>.Line?, Bool) in
            var evicted: (any Channel)?
            if state.open.count >= limit {
                evicted = state.removeLongestWaiting()
                guard evicted != nil else {
                    return (false, nil, state.refusals.refusal(of: .maxConnections, at: Date()), state.isQuiescing)
                }
            }
            state.open[ObjectIdentifier(channel)] = Slot(channel: channel, waitingTicket: nil)
            return (true, evicted, nil, state.isQuiescing)
        }
        evicted?.close(promise: nil)
        // Opened as shutdown began, accepted before the listener closed.
        if admitted, quiescing { Self.askToClose(channel) }
        switch line {
        case .first:
            logger.warning("\(limit) connections open, all of them being answered (max_connections): new ones are closed until some end (logged once; later ones are counted)")
        case .summary(let count, let seconds):
            logger.warning("\(count) more connection(s) closed in the last \(seconds) s: all \(limit) open ones were being answered (max_connections)")
        case nil: break
        }
        return admitted
    }

    func waitingChanged(_ channel: any Channel, waiting: Bool) {
        state.withLock { state in
            let id = ObjectIdentifier(channel)
            guard state.open[id] != nil else { return }
            if waiting {
                state.nextTicket += 1
                state.open[id]?.waitingTicket = state.nextTicket
                state.waitingOrder.append((id, state.nextTicket))
                state.compactIfMostlyStale()
            } else {
                state.open[id]?.waitingTicket = nil
            }
        }
    }

    func closed(_ channel: any Channel) {
        let drained = state.withLock { state in
            state.open.removeValue(forKey: ObjectIdentifier(channel))
            return state.open.isEmpty ? state.drained.take() : nil
        }
        drained?.resume()
    }

    /// Graceful shutdown, once the listener is closed: asks every open connection to close once it has answered
    /// what it is answering (an idle one closes at once), and returns when none is open.
    func quiesce() async {
        await withCheckedContinuation { continuation in
            let channels = state.withLock { state -> [any Channel] in
                state.isQuiescing = true
                guard !state.open.isEmpty else { return [] }
                state.drained = continuation
                return state.open.values.map(\.channel)
            }
            if channels.isEmpty { return continuation.resume() }
            for channel in channels { Self.askToClose(channel) }
        }
    }

    private static func askToClose(_ channel: any Channel) {
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
    }
}

extension ConnectionSlots.State {
    /// Takes the longest-waiting connection out of the books (so the next arrival does not pick it again while it
    /// is still closing) and returns it; nil when every connection is being answered.
    fileprivate mutating func removeLongestWaiting() -> (any Channel)? {
        while waitingHead < waitingOrder.count {
            let entry = waitingOrder[waitingHead]
            waitingHead += 1
            if let slot = open[entry.id], slot.waitingTicket == entry.ticket {
                open[entry.id] = nil
                return slot.channel
            }
        }
        return nil
    }

    /// Keeps the order list proportional to the open connections: stale entries pile up as connections go from
    /// waiting to answered and back.
    fileprivate mutating func compactIfMostlyStale() {
        if waitingHead > 1024, waitingHead * 2 > waitingOrder.count {
            waitingOrder.removeFirst(waitingHead)
            waitingHead = 0
        }
        guard waitingOrder.count - waitingHead > 2 * open.count + 64 else { return }
        waitingOrder = waitingOrder[waitingHead...].filter { open[$0.id]?.waitingTicket == $0.ticket }
        waitingHead = 0
    }
}
