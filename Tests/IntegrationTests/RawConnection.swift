import ClusterHarness
import Foundation

/// A client socket for what HTTP clients will not do: open and stay silent, trickle a request, stop halfway.
final class RawConnection {
    private var fd: Int32
    /// Everything the server sent so far.
    private var received = [UInt8]()

    /// Connects to a Unix socket.
    init(unixPath path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8.prefix(raw.count - 1)) + [0])
        }
        try connect(&address)
    }

    /// Connects to 127.0.0.1; `receiveBuffer` caps the kernel's buffer for what the server sends (a client that reads
    /// nothing then holds little of it).
    init(loopbackPort port: Int, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        try connect(&address)
    }

    private func connect<Address>(_ address: inout Address) throws {
        let connected = fd >= 0 && withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<Address>.size)) == 0
            }
        }
        guard connected else {
            let reason = String(cString: strerror(errno))
            if fd >= 0 { close(fd) }
            throw HarnessError("connect: \(reason)")
        }
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Closes both directions, as a client that goes away does.
    func disconnect() {
        close(fd)
        fd = -1
    }

    func send(_ text: String) {
        _ = text.utf8CString.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) }
    }

    /// Sends what the kernel takes now, without waiting; how many bytes that was (0 when its buffer is full).
    func sendWithoutWaiting(_ bytes: [UInt8]) -> Int {
        max(0, bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) })
    }

    /// Half-closes: the server sees the end of the request stream.
    func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }

    /// Everything the server sent until it closed the connection, or nil when it has not closed within `timeout`.
    func readUntilClosed(timeout: Duration) async throws -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            // Looked at once more after the deadline: a test process busy past it has not waited for the server.
            let late = ContinuousClock.now >= deadline
            if let closed = readAvailable(), closed { return String(decoding: received, as: UTF8.self) }
            if late { return nil }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Whether the server has closed the connection (reads what is there without waiting).
    var isClosedByServer: Bool { readAvailable() ?? true }

    /// true once the server closed, false while it is open; nil on an error (a reset: closed too).
    private func readAvailable() -> Bool? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count > 0 { received += buffer[..<count]; continue }
            if count == 0 { return true }
            return errno == EAGAIN || errno == EWOULDBLOCK ? false : nil
        }
    }
}

/// Open file descriptors and the soft limit of a process, from /proc.
enum ProcessDescriptors {
    static func count(pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }

    static func softLimit(pid: Int32) -> Int? {
        guard let limits = try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8),
              let line = limits.split(separator: "\n").first(where: { $0.hasPrefix("Max open files") })
        else { return nil }
        return line.split(separator: " ").dropFirst(3).first.flatMap { Int($0) }
    }
}
