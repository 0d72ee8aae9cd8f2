import Logging
import NIOCore
import Synchronization

/// Bounds the control connections each uid holds, so that one user's runaway (or hostile) program cannot take
/// every file descriptor and lock everyone else out. Every uid has its own bound, root and the daemon's own uid
/// included: their own scripts stay bounded too, and no other user's flood ever reaches their share.
final class PeerConnectionLimiter: Sendable {
    let perUID: Int
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var open: [UInt32: Int] = [:]
        /// Uids refused since they were last under the bound: each is logged once, not once per connection.
        var refusing: Set<UInt32> = []
    }

    init(perUID: Int, logger: Logger) {
        self.perUID = perUID
        self.logger = logger
    }

    /// Counts a new connection of `uid` unless it already has `perUID` open; an admitted connection is released
    /// when it closes.
    func admit(_ channel: any Channel, uid: UInt32) -> Bool {
        let (admitted, firstRefusal) = state.withLock { state -> (Bool, Bool) in
            let open = state.open[uid, default: 0]
            guard open < perUID else { return (false, state.refusing.insert(uid).inserted) }
            state.open[uid] = open + 1
            return (true, false)
        }
        if admitted {
            channel.closeFuture.whenComplete { _ in self.release(uid) }
        } else if firstRefusal {
            logger.warning("uid \(uid) has \(perUID) control connections open, the most one user may have (control_connections_per_uid): its new ones are refused until some close")
        }
        return admitted
    }

    private func release(_ uid: UInt32) {
        state.withLock { state in
            let open = state.open[uid, default: 1] - 1
            state.open[uid] = open > 0 ? open : nil
            if open < perUID { state.refusing.remove(uid) }
        }
    }

    func openConnections(of uid: UInt32) -> Int {
        state.withLock { $0.open[uid, default: 0] }
    }
}
