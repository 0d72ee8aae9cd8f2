import CSystemd
import Glibc

/// The listening socket systemd passes to a socket-activated service (`sd_listen_fds`).
public enum SocketActivation {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The one listening Unix stream socket passed by the `.socket` unit, or nil when the process was not
    /// socket-activated. Anything else passed is a unit misconfiguration, reported rather than served.
    /// The LISTEN_* variables are cleared, so child processes do not take the socket for theirs.
    public static func listeningUnixSocket() throws(Failure) -> Int32? {
        let count = sd_listen_fds(1)
        guard count >= 0 else {
            throw Failure(description: "cannot read the sockets systemd passed: \(String(cString: strerror(-count)))")
        }
        guard count > 0 else { return nil }
        guard count == 1 else {
            throw Failure(description: "systemd passed \(count) sockets; the .socket unit must have exactly one ListenStream=")
        }
        let fd = SD_LISTEN_FDS_START
        guard sd_is_socket_unix(fd, Int32(SOCK_STREAM.rawValue), 1, nil, 0) > 0 else {
            throw Failure(description: "the socket systemd passed is not a listening Unix stream socket (ListenStream= must be a path)")
        }
        return fd
    }

    /// The filesystem path a Unix socket is bound to, for logs and status.
    public static func path(of fd: Int32) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
        }
        guard named, address.sun_family == sa_family_t(AF_UNIX) else { return nil }
        return withUnsafeBytes(of: address.sun_path) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
        }
    }
}
