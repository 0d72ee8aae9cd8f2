import ControlWire
import Foundation
import PushAgentCore
import PushAgentStore

extension StepUpCaller {
    /// The caller as the kernel reports it: uid and pid from SO_PEERCRED, the program from /proc/PID/exe (readable
    /// for the daemon's own user and root), else /proc/PID/comm, which the process may have set itself.
    init(_ peer: Peer) {
        let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(peer.pid)/exe")
        let program = executable.map { ($0 as NSString).lastPathComponent } ?? peer.command ?? "pid \(peer.pid)"
        self.init(uid: peer.uid, pid: peer.pid, program: DisplayText.sanitized(program),
                  executable: executable.map { DisplayText.sanitized($0) })
    }

    /// "alice (uid 1000)", or the bare uid when it has no passwd entry.
    var userDescription: String {
        guard let entry = getpwuid(uid) else { return "uid \(uid)" }
        return "\(String(cString: entry.pointee.pw_name)) (uid \(uid))"
    }
}
