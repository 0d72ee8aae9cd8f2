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

    /// A waiting long-poll does not make the relay keep whatever its client sends behind it.
    @Test func aClientPipeliningTooMuchBehindAWaitingPollIsClosed() async throws {
        try await Relay.run(requestTimeoutSeconds: 30) { relay in
            let registered = try await CurlHTTPClient.shared.send(HTTPRequest(method: "POST", url: relay.baseURL + "/v1/devices"))
            let device = try JSONDecoder().decode([String: String].self, from: registered.body)
            let connection = try RawConnection(loopbackPort: relay.port)
            connection.send("GET /v1/devices/\(device["device_id"] ?? "")/messages?wait=60 HTTP/1.1\r\nHost: relay\r\n"
                            + "Authorization: Bearer \(device["secret"] ?? "")\r\n\r\n")
            try await eventually("the poll waits", timeout: .seconds(5)) {
                try await relay.metric("pushrelay_polls_waiting") == 1
            }
            connection.send("POST /v1/devices HTTP/1.1\r\nHost: relay\r\nContent-Length: 100000\r\n\r\n"
                            + String(repeating: " ", count: 100_000))
            #expect(try await connection.readUntilClosed(timeout: .seconds(5)) != nil, "closed, not buffered")
        }
    }
}
