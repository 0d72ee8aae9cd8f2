import Foundation

/// An exclusive flock held for the daemon's lifetime, so a second instance cannot take over the socket or the database.
struct InstanceLock: ~Copyable {
    private let fd: Int32

    init(path: String) throws(ConfigError) {
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ConfigError("cannot open lock file \(path): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw ConfigError("another pushagentd is already running with \(path) (stop it first, or give this one its own --state-dir and --socket)")
        }
    }

    deinit { close(fd) }
}
