import Foundation
import PushAgentStore

/// The process polkit is asked about, as polkitd names a unix-process: its pid, its start time (so that a pid reused
/// by a later process is not mistaken for it) and its uid.
struct PolkitSubject: Equatable, Sendable {
    let pid: UInt32
    let startTime: UInt64
    let uid: UInt32

    /// The control-socket peer's process. It is still connected, waiting for its answer, so its pid is still its own.
    init(peer: Peer) throws(ServiceError) {
        let path = "/proc/\(peer.pid)/stat"
        guard peer.pid > 0, let stat = try? String(contentsOfFile: path, encoding: .utf8),
              let startTime = Self.startTime(stat: stat) else {
            throw ServiceError(.forbidden, "cannot read the start time of the calling process (pid \(peer.pid)) from \(path), which polkit needs to know it: has it exited?")
        }
        self.init(pid: UInt32(peer.pid), startTime: startTime, uid: peer.uid)
    }

    init(pid: UInt32, startTime: UInt64, uid: UInt32) {
        self.pid = pid
        self.startTime = startTime
        self.uid = uid
    }

    /// Field 22 of /proc/PID/stat, the process's start in clock ticks after boot, as polkitd reads it. The fields are
    /// counted after the command name's closing parenthesis: the name (field 2) may hold spaces and parentheses.
    static func startTime(stat: String) -> UInt64? {
        guard let nameEnd = stat.lastIndex(of: ")") else { return nil }
        // What follows the name starts at field 3.
        let fields = stat[stat.index(after: nameEnd)...].split(separator: " ")
        guard fields.count > 22 - 3 else { return nil }
        return UInt64(fields[22 - 3])
    }
}
