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
        guard peer.pid > 0, let stat = FileManager.default.contents(atPath: path), let startTime = Self.startTime(stat: stat)
        else {
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
    ///
    /// Read as bytes, as polkitd does: the name is the process's own choice. By `Character`, a name ending in a
    /// prepending mark (U+0600) joined the `)` after it, and the fields were counted from a `)` inside the name; and
    /// a name the kernel cut in the middle of a UTF-8 sequence was no text at all.
    static func startTime(stat: Data) -> UInt64? {
        guard let nameEnd = stat.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        // What follows the name starts at field 3.
        let fields = stat[stat.index(after: nameEnd)...].split(separator: UInt8(ascii: " "))
        guard fields.count > 22 - 3 else { return nil }
        return UInt64(String(decoding: fields[22 - 3], as: UTF8.self))
    }
}
