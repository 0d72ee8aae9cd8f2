import Foundation

/// Who may write through the control API (docs/design.md §4): root, the daemon's own uid, and configured operators
/// (`"alice"` a user, `"@wheel"` the members of a group). Names and the list itself are read per request, so group
/// changes and a reloaded `operators` apply at once.
struct OperatorPolicy: Sendable {
    let config: LiveConfig
    let daemonUid: UInt32

    func mayWrite(uid: UInt32) -> Bool {
        if uid == 0 || uid == daemonUid { return true }
        guard let user = Self.userName(uid: uid) else { return false }
        for entry in config.current.operators {
            if entry.hasPrefix("@") {
                if Self.isMember(user: user, uid: uid, ofGroup: String(entry.dropFirst())) { return true }
            } else if entry == user {
                return true
            }
        }
        return false
    }

    private static func userName(uid: UInt32) -> String? {
        guard let entry = getpwuid(uid) else { return nil }
        return String(cString: entry.pointee.pw_name)
    }

    private static func isMember(user: String, uid: UInt32, ofGroup name: String) -> Bool {
        guard let group = getgrnam(name) else { return false }
        if let entry = getpwuid(uid), entry.pointee.pw_gid == group.pointee.gr_gid { return true }
        var member = group.pointee.gr_mem
        while let current = member?.pointee {
            if String(cString: current) == user { return true }
            member = member?.advanced(by: 1)
        }
        return false
    }
}
