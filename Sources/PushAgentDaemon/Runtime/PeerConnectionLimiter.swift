import ConnectionGuards
import Foundation
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
        var refusals = RefusalLog<UInt32>()
    }

    init(perUID: Int, logger: Logger) {
        self.perUID = perUID
        self.logger = logger
    }

    /// Counts a new connection of `uid` unless it already has `perUID` open; an admitted connection is released
    /// when it closes.
    func admit(_ channel: any Channel, uid: UInt32, now: Date = Date()) -> Bool {
        let (admitted, line) = state.withLock { state -> (Bool, RefusalLog<UInt32>.Line?) in
            let open = state.open[uid, default: 0]
            guard open < perUID else { return (false, state.refusals.refusal(of: uid, at: now)) }
            state.open[uid] = open + 1
            return (true, nil)
        }
        if admitted {
            channel.closeFuture.whenComplete { _ in self.release(uid) }
        }
        switch line {
        case .first:
            logger.warning("uid \(uid) has \(perUID) control connections open, the most one user may have (control_connections_per_uid): its new ones are refused until some close (logged once; later refusals are counted)")
        case .summary(let count, let seconds):
            logger.warning("uid \(uid): \(count) more control connection(s) refused in the last \(seconds) s, over the bound of \(perUID) (control_connections_per_uid)")
        case nil: break
        }
        return admitted
    }

    private func release(_ uid: UInt32) {
        state.withLock { state in
            let open = state.open[uid, default: 1] - 1
            state.open[uid] = open > 0 ? open : nil
        }
    }

    func openConnections(of uid: UInt32) -> Int {
        state.withLock { $0.open[uid, default: 0] }
    }
}
