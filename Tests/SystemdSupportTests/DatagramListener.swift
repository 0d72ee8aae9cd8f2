import Glibc

struct SocketError: Error {
    let call: String
    let code: Int32 = errno
}

/// An AF_UNIX datagram socket standing in for systemd's notify socket.
struct DatagramListener {
    let directory: String
    let path: String
    private let fd: Int32

    init() throws {
        var template = Array("/tmp/pushagent-notify-XXXXXX".utf8CString)
        guard let dir = mkdtemp(&template) else { throw SocketError(call: "mkdtemp") }
        directory = String(cString: dir)
        path = directory + "/notify.sock"
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw SocketError(call: "socket") }

        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else { throw SocketError(call: "bind") }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func receive() throws -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count >= 0 else { throw SocketError(call: "recv") }
        return String(decoding: buffer.prefix(count), as: UTF8.self)
    }

    func close() {
        _ = Glibc.close(fd)
        unlink(path)
        rmdir(directory)
    }
}
