import Foundation

/// One HTTP/1.1 request or response as raw bytes, framed just enough to forward it and cut it at a chosen byte.
struct HTTPMessage {
    var head: String
    var body: [UInt8]

    var bytes: [UInt8] { Array((head + "\r\n\r\n").utf8) + body }

    /// Reads a head and its body from `fd`: `Content-Length` bytes when given, else (a response to a
    /// `Connection: close` request) everything until the peer closes. Nil when the peer hangs up before a whole message.
    static func read(from fd: Int32) -> HTTPMessage? {
        var buffer: [UInt8] = []
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while headEnd == nil {
            guard let chunk = LoopbackSocket.receive(fd) else { return nil }
            let searchFrom = max(0, buffer.count - 3)
            buffer += chunk
            headEnd = buffer[searchFrom...].firstRange(of: separator)?.lowerBound
            if buffer.count > 1 << 20 { return nil }
        }
        let head = String(decoding: buffer[..<headEnd!], as: UTF8.self)
        var body = Array(buffer[(headEnd! + separator.count)...])
        let isResponse = head.hasPrefix("HTTP/")
        if let length = contentLength(in: head) {
            while body.count < length {
                guard let chunk = LoopbackSocket.receive(fd) else { return nil }
                body += chunk
            }
            body = Array(body.prefix(length))
        } else if isResponse {
            while let chunk = LoopbackSocket.receive(fd) { body += chunk }
        }
        return HTTPMessage(head: head, body: body)
    }

    /// The same message asking for (or announcing) the connection's end after it, so one connection carries one exchange.
    func withConnectionClose() -> HTTPMessage {
        let lines = head.components(separatedBy: "\r\n").filter { !$0.lowercased().hasPrefix("connection:") }
        return HTTPMessage(head: (lines + ["Connection: close"]).joined(separator: "\r\n"), body: body)
    }

    /// Where to cut this message: inside the body when there is one (the head promised more than arrives), else
    /// inside the head.
    func cutPoint(_ random: SoakRandom) -> Int {
        let headLength = head.utf8.count + 4
        if body.count > 1 { return headLength + random.integer(1..<body.count) }
        return random.integer(1..<headLength)
    }

    static func errorResponse(status: String, code: String) -> [UInt8] {
        let body = #"{"error":{"code":"\#(code)","message":"injected by pushsoak's fault proxy"}}"#
        return Array("HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)".utf8)
    }

    private static func contentLength(in head: String) -> Int? {
        for line in head.components(separatedBy: "\r\n").dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "content-length" {
                return Int(parts[1].trimmingCharacters(in: .whitespaces))
            }
        }
        return nil
    }
}
