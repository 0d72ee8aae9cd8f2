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
}
