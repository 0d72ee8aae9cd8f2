import ClusterHarness
import CurlHTTP
import Foundation
import Testing

/// pushrelay's own HTTP/1.1 server (`RelayHTTPHandler`) as clients meet it, on a real process through raw sockets.
@Suite("pushrelay HTTP/1.1")
struct RelayHTTPTests {
    typealias Relay = RelayConnectionLimitTests.Relay

    /// The answers' status codes, in order (a body need not end with a line break).
    private static func statuses(_ answer: String) -> [Substring] {
        answer.components(separatedBy: "HTTP/1.1 ").dropFirst().map { $0.prefix(3) }
    }

    @Test func pipelinedRequestsAreAnsweredInOrderAndConnectionCloseIsHonoured() async throws {
        try await Relay.run { relay in
            let connection = try RawConnection(loopbackPort: relay.port)
            connection.send("GET /healthz HTTP/1.1\r\nHost: relay\r\n\r\n"
                            + "GET /no-such-thing HTTP/1.1\r\nHost: relay\r\n\r\n"
                            + "GET /healthz HTTP/1.1\r\nHost: relay\r\nConnection: close\r\n\r\n")
            let answer = try #require(try await connection.readUntilClosed(timeout: .seconds(5)), "closed after the third")
            #expect(Self.statuses(answer) == ["200", "404", "200"], "\(answer)")
            #expect(answer.lowercased().contains("connection: close"), "\(answer)")
        }
    }

    @Test func anHTTP10RequestIsAnsweredAndItsConnectionClosed() async throws {
        try await Relay.run { relay in
            let connection = try RawConnection(loopbackPort: relay.port)
            connection.send("GET /healthz HTTP/1.0\r\n\r\n")
            let answer = try #require(try await connection.readUntilClosed(timeout: .seconds(5)), "closed after the answer")
            #expect(Self.statuses(answer) == ["200"], "\(answer)")
        }
    }

    @Test func aBodyOnAnEndpointThatReadsNoneIsRefusedAndNothingDone() async throws {
        try await Relay.run { relay in
            let device = try await relay.registerDevice()
            let connection = try RawConnection(loopbackPort: relay.port)
            connection.send("DELETE /v1/devices/\(device.id) HTTP/1.1\r\nHost: relay\r\n"
                            + "Authorization: Bearer \(device.secret)\r\nContent-Length: 5\r\n\r\nhello")
            let answer = try #require(try await connection.readUntilClosed(timeout: .seconds(5)))
            #expect(Self.statuses(answer) == ["413"], "\(answer)")
            #expect(try await relay.metric("pushrelay_devices") == 1, "the device is still registered")
        }
    }

    @Test func aChunkedBodyIsPutTogetherWhole() async throws {
        try await Relay.run { relay in
            let connection = try RawConnection(loopbackPort: relay.port)
            let body = #"{"name": "chunked laptop", "platform": "linux"}"#
            let chunks = body.map { "1\r\n\($0)\r\n" }.joined() + "0\r\n\r\n"
            connection.send("POST /v1/devices HTTP/1.1\r\nHost: relay\r\nContent-Type: application/json\r\n"
                            + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + chunks)
            let answer = try #require(try await connection.readUntilClosed(timeout: .seconds(5)))
            #expect(Self.statuses(answer) == ["201"], "\(answer)")
        }
    }

    @Test func aWrongMethodNamesTheAllowedOnes() async throws {
        try await Relay.run { relay in
            let connection = try RawConnection(loopbackPort: relay.port)
            connection.send("DELETE /healthz HTTP/1.1\r\nHost: relay\r\nConnection: close\r\n\r\n")
            let answer = try #require(try await connection.readUntilClosed(timeout: .seconds(5)))
            #expect(answer.hasPrefix("HTTP/1.1 405"), "\(answer)")
            #expect(answer.lowercased().contains("allow: get"), "\(answer)")
        }
    }

    @Test func aMalformedRequestGets400AndTheConnectionCloses() async throws {
        try await Relay.run { relay in
            let connection = try RawConnection(loopbackPort: relay.port)
            connection.send("this is not HTTP\r\n\r\n")
            let answer = try #require(try await connection.readUntilClosed(timeout: .seconds(5)))
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer)")
        }
    }

    @Test func aBodyHeldBackFor100ContinueIsAskedFor() async throws {
        // A deadline the pause before the body cannot reach on a loaded machine.
        try await Relay.run(requestTimeoutSeconds: 30) { relay in
            let connection = try RawConnection(loopbackPort: relay.port)
            connection.send("POST /v1/devices HTTP/1.1\r\nHost: relay\r\nContent-Type: application/json\r\n"
                            + "Content-Length: 2\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n")
            try await Task.sleep(for: .milliseconds(300))
            connection.send("{}")
            let answer = try #require(try await connection.readUntilClosed(timeout: .seconds(5)))
            #expect(Self.statuses(answer) == ["100", "201"], "\(answer)")
        }
    }

    /// On SIGTERM the waiting poll is answered, an idle keep-alive connection is closed, and the relay exits then,
    /// not when the idle connection's request deadline (60 s here) would have closed it.
    @Test func onSIGTERMAWaitingPollIsAnsweredAndIdleConnectionsClose() async throws {
        try await Relay.run(requestTimeoutSeconds: 60) { relay in
            let idle = try RawConnection(loopbackPort: relay.port)
            idle.send("GET /healthz HTTP/1.1\r\nHost: relay\r\n\r\n")
            let poll = try RawConnection(loopbackPort: relay.port)
            poll.send(try await relay.registerDevice().pollRequest(wait: 60))
            try await eventually("the poll waits", timeout: .seconds(15)) {
                try await relay.metric("pushrelay_polls_waiting") == 1
            }
            let start = ContinuousClock.now
            relay.process.signal(SIGTERM)
            let answer = try #require(try await poll.readUntilClosed(timeout: .seconds(10)), "the poll's connection closes")
            #expect(answer.hasPrefix("HTTP/1.1 200") && answer.contains(#""messages":[]"#), "\(answer)")
            let idleOutput = try #require(try await idle.readUntilClosed(timeout: .seconds(10)), "the idle connection closes")
            #expect(Self.statuses(idleOutput) == ["200"], "its one answer, and nothing after it: \(idleOutput)")
            let exit = try await relay.process.waitForExit(timeout: .seconds(10))
            #expect(!exit.signaled && exit.status == 0, "\(exit)")
            // Well inside the 60 s deadline, with room for a loaded 2-core machine (milliseconds when idle).
            #expect(ContinuousClock.now - start < .seconds(10))
        }
    }

    /// What a client pipelines behind its poll: hundreds of kilobytes, which the test's output names by `label`
    /// (issue 43: printed whole, they were 263 KB of `make test`'s output).
    struct Pipelined: Sendable, CustomTestStringConvertible {
        let label: String
        let text: String
        var testDescription: String { label }

        static let all = [
            Pipelined(label: "a 100 kB body",
                      text: "POST /v1/devices HTTP/1.1\r\nHost: relay\r\nContent-Length: 100000\r\n\r\n" + String(repeating: " ", count: 100_000)),
            Pipelined(label: "20 requests with 8 kB heads", text: String(
                repeating: "GET /healthz HTTP/1.1\r\nHost: relay\r\nX-Filler: \(String(repeating: "a", count: 8000))\r\n\r\n", count: 20)),
        ]
    }

    @Test func theLargePipelinedInputsShowShortInTheTestOutput() {
        for pipelined in Pipelined.all {
            #expect(String(describingForTest: pipelined).utf8.count <= 100, "shown as \(String(describingForTest: pipelined).prefix(100))…")
        }
    }

    /// A waiting long-poll does not make the relay keep whatever its client sends behind it: large bodies, or many
    /// requests with large heads.
    @Test(arguments: Pipelined.all)
    func aClientPipeliningTooMuchBehindAWaitingPollIsClosed(pipelined: Pipelined) async throws {
        try await Relay.run(requestTimeoutSeconds: 30) { relay in
            let connection = try RawConnection(loopbackPort: relay.port)
            connection.send(try await relay.registerDevice().pollRequest(wait: 60))
            try await eventually("the poll waits", timeout: .seconds(15)) {
                try await relay.metric("pushrelay_polls_waiting") == 1
            }
            connection.send(pipelined.text)
            #expect(try await connection.readUntilClosed(timeout: .seconds(5)) != nil, "closed, not buffered")
        }
    }

    /// A client that sends requests and never reads the answers stops being read, rather than having the relay keep
    /// every answer in memory: what it can send is bounded by the kernel's buffers, and then nothing more goes in.
    @Test func aClientThatNeverReadsItsAnswersStopsBeingRead() async throws {
        try await Relay.run(requestTimeoutSeconds: 60) { relay in
            let connection = try RawConnection(loopbackPort: relay.port, receiveBuffer: 4096)
            let requests = Array(String(repeating: "GET /no-such-thing HTTP/1.1\r\nHost: relay\r\n\r\n", count: 1000).utf8)
            var sent = 0, lastProgress = ContinuousClock.now
            let giveUp = ContinuousClock.now + .seconds(30)
            // Until a whole second passes in which the relay takes nothing more; requests are never cut apart.
            while ContinuousClock.now - lastProgress < .seconds(1), ContinuousClock.now < giveUp {
                let accepted = connection.sendWithoutWaiting(Array(requests[(sent % requests.count)...]))
                if accepted > 0 {
                    sent += accepted
                    lastProgress = .now
                } else {
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            #expect(ContinuousClock.now < giveUp, "the relay kept reading: \(sent) bytes of requests taken in 30 s")
            #expect(sent < 64 << 20, "\(sent) bytes of requests taken")
            #expect(!connection.isClosedByServer, "a client that only reads slowly is not an error")
        }
    }
}
