import Foundation

/// What is wrong with a control socket's path, found the way the kernel would refuse it: missing, not a socket, not
/// ours to open, or nobody listening. curl says none of this (it reports "Failed to connect to localhost port 80").
enum SocketProbe {
    /// Nil when the socket accepts a connection.
    static func problem(at path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            return errno == ENOENT ? "no socket there" : "cannot look at it: \(String(cString: strerror(errno)))"
        }
        guard info.st_mode & S_IFMT == S_IFSOCK else { return "it is not a socket" }
        guard access(path, R_OK | W_OK) == 0 else {
            return "permission denied (mode \(String(info.st_mode & 0o777, radix: 8)), owner uid \(info.st_uid), group gid \(info.st_gid))"
        }
        return connectFailure(path)
    }

    private static func connectFailure(_ path: String) -> String? {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else { return "its path is longer than a socket address holds" }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: path.utf8)
            buffer[path.utf8.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected != 0 else { return nil }
        return errno == ECONNREFUSED
            ? "connection refused: nothing listens on it (a daemon that stopped left it behind)"
            : "cannot connect: \(String(cString: strerror(errno)))"
    }
}
