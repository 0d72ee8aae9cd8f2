import Foundation

/// One Web Push POST to the relay as an application server makes it, on a connection of its own (`Connection:
/// close`), with plain blocking sockets so that what the sender knows afterwards is exact: a connection that could
/// not be made carried nothing, and only a whole answer from the relay says what it did.
struct WebPushPost: Sendable {
    let port: Int
    let path: String
    let ttl: Int
    let body: Data
    /// `Authorization: vapid t=…, k=…` for a subscription restricted to the sender's key.
    let authorization: String?

    enum Result: Sendable {
        /// The relay answered: 201 and the message id of `Location`, or a refusal with its `Retry-After` and text.
        case answered(status: Int, messageID: String?, retryAfter: Int?, text: String)
        /// No connection: nothing reached the relay (it was down), so it cannot have stored anything.
        case notSent(String)
        /// Connected, but no whole answer came (the relay was killed mid-request): it may or may not have stored it.
        case unconfirmed(String)
    }

    /// Blocks the calling thread (a lane's own, never the cooperative pool's) for at most `timeout` seconds.
    func send(timeout: Int = 60) -> Result {
        guard let fd = LoopbackSocket.connect(port: port) else { return .notSent("connect: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        LoopbackSocket.setTimeout(fd, seconds: timeout)
        var head = [
            "POST \(path) HTTP/1.1", "Host: 127.0.0.1:\(port)", "TTL: \(ttl)", "Urgency: normal",
            "Content-Encoding: aes128gcm", "Content-Type: application/octet-stream", "Content-Length: \(body.count)",
            "Connection: close",
        ]
        if let authorization { head.append("Authorization: \(authorization)") }
        guard LoopbackSocket.sendAll(fd, Array((head.joined(separator: "\r\n") + "\r\n\r\n").utf8) + body) else {
            return .unconfirmed("the connection broke while sending: \(String(cString: strerror(errno)))")
        }
        guard let response = HTTPMessage.read(from: fd) else { return .unconfirmed("no whole answer: the connection ended") }
        let lines = response.head.components(separatedBy: "\r\n")
        let statusParts = lines.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            return .unconfirmed("an answer without a status line: \(lines.first ?? "")")
        }
        func header(_ name: String) -> String? {
            for line in lines.dropFirst() {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == name {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
            return nil
        }
        let messageID = header("location").flatMap { $0.split(separator: "/").last.map(String.init) }
        return .answered(status: status, messageID: messageID, retryAfter: header("retry-after").flatMap { Int($0) },
                         text: String(decoding: response.body.prefix(300), as: UTF8.self))
    }
}

/// Runs blocking work on a thread of its own, so that the cooperative pool (two threads on a two-core machine) is
/// never held by a socket waiting on a killed relay.
func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}
