import Foundation
import Glibc

/// One keep-alive HTTP/1.1 connection to a loopback port over a blocking socket, used by one thread at a time: the
/// `pushbench webpush` load generator's client, as `scripts/bench-relay/loadgen.c` is `make bench-relay`'s (no
/// library, no event loop, no task: a request is one `send`, an answer as few `recv`s as it arrived in). The relay
/// gives every answer a `Content-Length`; chunked answers are not read.
final class BlockingHTTPConnection: @unchecked Sendable {
    let fd: Int32
    private var buffer: UnsafeMutablePointer<UInt8>
    private var capacity = 64 * 1024
    /// What was received and not yet taken: `buffer[start..<end]`.
    private var start = 0, end = 0

    struct Closed: Error, CustomStringConvertible {
        var description: String
    }

    init(port: Int) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Closed(description: "socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Closed(description: "connect to 127.0.0.1:\(port): \(reason)")
        }
        self.fd = fd
        buffer = .allocate(capacity: capacity)
    }

    deinit {
        close(fd)
        buffer.deallocate()
    }

    /// Ends a `recv` another thread is blocked in (it then sees the connection closed).
    func shutDown() { shutdown(fd, Int32(SHUT_RDWR)) }

    func send(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0, errno == EINTR { continue }
                guard sent > 0 else { throw Closed(description: "send: \(String(cString: strerror(errno)))") }
                offset += sent
            }
        }
    }

    /// Reads the next answer and hands its status and body to `body` (the bytes are valid only during the call).
    func readResponse<R>(_ body: (_ status: Int, _ content: UnsafeBufferPointer<UInt8>) throws -> R) throws -> R {
        var headEnd: Int
        while true {
            if let found = find(Self.headEnd, from: start) {
                headEnd = found + 4
                break
            }
            try receiveMore()
        }
        let status = parseStatus()
        guard let length = contentLength(headEnd: headEnd) else {
            throw Closed(description: "an answer without Content-Length: \(String(decoding: UnsafeBufferPointer(start: buffer + start, count: min(200, headEnd - start)), as: UTF8.self))")
        }
        while end - headEnd < length {
            // Room for the whole body, so that `receiveMore` never moves the head away from under `headEnd`.
            let needed = headEnd - start + length
            if needed > capacity - start {
                let shift = start
                compact()
                headEnd -= shift
                if needed > capacity { grow(to: needed) }
            }
            try receiveMore()
        }
        defer {
            start = headEnd + length
            if start == end { start = 0; end = 0 }
        }
        return try body(status, UnsafeBufferPointer(start: buffer + headEnd, count: length))
    }

    private func receiveMore() throws {
        if end == capacity {
            if start > 0 { compact() } else { grow(to: capacity * 2) }
        }
        while true {
            let got = recv(fd, buffer + end, capacity - end, 0)
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { throw Closed(description: got == 0 ? "the relay closed the connection" : "recv: \(String(cString: strerror(errno)))") }
            end += got
            return
        }
    }

    private func compact() {
        if start > 0 {
            memmove(buffer, buffer + start, end - start)
            end -= start
            start = 0
        }
    }

    private func grow(to size: Int) {
        var newCapacity = capacity
        while newCapacity < size { newCapacity *= 2 }
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        bigger.update(from: buffer + start, count: end - start)
        buffer.deallocate()
        buffer = bigger
        end -= start
        start = 0
        capacity = newCapacity
    }

    private static let headEnd = Array("\r\n\r\n".utf8), lineEnd = Array("\r\n".utf8)

    private func find(_ needle: [UInt8], from: Int) -> Int? {
        guard end > from else { return nil }
        return firstIndex(of: needle, in: UnsafeBufferPointer(start: buffer + from, count: end - from)).map { from + $0 }
    }

    /// "HTTP/1.1 201 Created": the three digits at 9.
    private func parseStatus() -> Int {
        (0..<3).reduce(0) { $0 * 10 + Int(buffer[start + 9 + $1]) - 48 }
    }

    private func contentLength(headEnd: Int) -> Int? {
        let name = Array("content-length:".utf8)
        var line = start
        while line < headEnd {
            // Each header line begins after a CRLF.
            guard let next = firstIndex(of: Self.lineEnd, in: UnsafeBufferPointer(start: buffer + line, count: headEnd - line))
            else { return nil }
            line += next + 2
            guard headEnd - line > name.count else { return nil }
            var matches = true
            for index in 0..<name.count where buffer[line + index] | 0x20 != name[index] {
                matches = false
                break
            }
            guard matches else { continue }
            var position = line + name.count, value = 0
            while buffer[position] == UInt8(ascii: " ") { position += 1 }
            while buffer[position] >= 48, buffer[position] <= 57 {
                value = value * 10 + Int(buffer[position]) - 48
                position += 1
            }
            return value
        }
        return nil
    }
}

/// Where `needle` first begins in `haystack` (memchr for its first byte; glibc's memmem is not in Swift's Glibc).
func firstIndex(of needle: [UInt8], in haystack: UnsafeBufferPointer<UInt8>) -> Int? {
    guard let base = haystack.baseAddress, !needle.isEmpty else { return nil }
    var offset = 0
    while haystack.count - offset >= needle.count {
        guard let found = memchr(base + offset, Int32(needle[0]), haystack.count - offset - needle.count + 1) else { return nil }
        let index = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - base
        if memcmp(base + index, needle, needle.count) == 0 { return index }
        offset = index + 1
    }
    return nil
}

/// Setup calls (registering devices, making subscriptions, getting an access token), on a connection of their own.
struct SetupClient {
    let port: Int

    func request(_ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = [])
        throws -> (status: Int, body: Data) {
        let connection = try BlockingHTTPConnection(port: port)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        try connection.send(Array((head + "\r\n").utf8) + body)
        return try connection.readResponse { (status: $0, body: Data(buffer: $1)) }
    }

    func json(_ method: String, _ path: String, bearer: String? = nil, object: [String: Any]? = nil,
              expect: Int) throws -> [String: Any] {
        var headers: [(String, String)] = []
        if let bearer { headers.append(("Authorization", "Bearer \(bearer)")) }
        var body: [UInt8] = []
        if let object {
            headers.append(("Content-Type", "application/json"))
            body = Array(try JSONSerialization.data(withJSONObject: object))
        }
        let answer = try request(method, path, headers: headers, body: body)
        guard answer.status == expect, let reply = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any] else {
            throw BenchError("\(method) \(path): \(answer.status) \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
        }
        return reply
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
