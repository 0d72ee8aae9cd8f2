import ClusterHarness
import Foundation
import Testing

/// Issue 43 item 9: under the fuzzer the relay closed thousands of connections without an HTTP status, most of them a
/// `messages:send` with non-ASCII bytes in `Authorization`, `POST /v1/devices` or `GET /v1/devices/<id>`, each
/// answered when sent alone and at leisure. Every request the relay reads gets a status line.
@Suite("pushrelay answers every request")
struct RelayAnswersEveryRequestTests {
    typealias Relay = RelayConnectionLimitTests.Relay

    struct Request: Sendable, CustomTestStringConvertible {
        let label: String
        let bytes: [UInt8]
        var testDescription: String { label }

        init(_ label: String, _ head: String, body: String = "", rawHeader: [UInt8] = []) {
            self.label = label
            let length = body.isEmpty ? "" : "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
            bytes = Array((head + "\r\nHost: relay\r\n").utf8) + rawHeader + Array((length + "\r\n" + body).utf8)
        }

        static let fuzzed = [
            Request("a send with non-ASCII bytes in Authorization", "POST /v1/projects/p/messages:send HTTP/1.1",
                    body: #"{"message": {"token": "t", "data": {"a": "b"}}}"#,
                    rawHeader: Array("Authorization: Bearer ".utf8) + [0xC3, 0xA9, 0xFF, 0x80] + Array("\r\n".utf8)),
            Request("a registration", "POST /v1/devices HTTP/1.1", body: #"{"name": "fuzzed"}"#),
            Request("a GET of a device", "GET /v1/devices/0123456789abcdef HTTP/1.1"),
        ]
    }

    /// The status codes of the answers in `answer`, in order.
    private static func statuses(_ answer: String) -> [Substring] {
        answer.components(separatedBy: "HTTP/1.1 ").dropFirst().map { $0.prefix(3) }
    }

    /// A client that sends its request and shuts its side, as `printf … | nc` and the fuzzer do, still waits for the
    /// answer (RFC 9112 §9.6): the relay closed such connections unanswered when the answer came from a task rather
    /// than at once on the event loop, which a loaded relay makes more often.
    @Test(arguments: Request.fuzzed)
    func aRequestFromAClientThatShutItsSideIsAnswered(request: Request) async throws {
        try await Relay.run(requestTimeoutSeconds: 10) { relay in
            let connections = try (0..<30).map { _ in try RawConnection(loopbackPort: relay.port) }
            for connection in connections {
                _ = connection.sendWithoutWaiting(request.bytes)
                connection.shutdownWrite()
            }
            var unanswered = 0
            for connection in connections {
                let answer = try await connection.readUntilClosed(timeout: .seconds(10)) ?? ""
                if Self.statuses(answer).count != 1 { unanswered += 1 }
            }
            #expect(unanswered == 0, "\(unanswered) of \(connections.count) closed without a status")
        }
    }

    /// A request the decoder cannot read, pipelined behind one being answered, gets its 400 after that answer
    /// instead of a close.
    @Test func aMalformedRequestPipelinedBehindAnotherIsAnswered() async throws {
        try await Relay.run(requestTimeoutSeconds: 10) { relay in
            let connection = try RawConnection(loopbackPort: relay.port)
            connection.send("POST /v1/devices HTTP/1.1\r\nHost: relay\r\nContent-Length: 2\r\n\r\n{}"
                            + "GET /healthz HTTP/1.1\r\nHost: relay\r\nNo colon here\r\n\r\n")
            let answer = try #require(try await connection.readUntilClosed(timeout: .seconds(10)), "closed after the 400")
            #expect(Self.statuses(answer) == ["201", "400"], "\(answer)")
        }
    }
}
