import Foundation

/// Listening sockets: a Unix one as systemd hands it to a socket-activated service, a loopback TCP one for a test's
/// own server.
public enum ListeningSocket {
    /// Listening on 127.0.0.1, on a port the kernel picks.
    public static func loopback() throws -> (fd: Int32, port: Int) {
        try loopbackSocket(port: 0, listening: true)
    }

    public static func unix(at path: String) throws -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw HarnessError("\(path) is too long for a Unix socket")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard fd >= 0, bound == 0, listen(fd, 64) == 0 else {
            let cause = String(cString: strerror(errno))
            if fd >= 0 { close(fd) }
            throw HarnessError("cannot listen on \(path): \(cause)")
        }
        return fd
    }
}
