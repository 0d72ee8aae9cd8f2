import Foundation

/// An exclusive flock held for the process's lifetime, so a second instance cannot share its state (pushagentd's
/// socket and database, pushrelay's SQLite queue, whose delivery assumes one writer).
public struct InstanceLock: ~Copyable, Sendable {
    public struct Taken: Error, CustomStringConvertible {
        public let description: String
    }

    private let fd: Int32

    /// `whenHeld`: what to tell the operator when another process holds the lock.
    public init(path: String, whenHeld: String) throws(Taken) {
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Taken(description: "cannot open lock file \(path): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw Taken(description: whenHeld)
        }
    }

    deinit { close(fd) }
}
