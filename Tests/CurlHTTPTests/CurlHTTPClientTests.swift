import ClusterHarness
import CurlHTTP
import Foundation
import Testing

private let client = CurlHTTPClient.shared

private func elapsed(_ work: () async throws -> Void) async -> (Duration, (any Error)?) {
    let clock = ContinuousClock()
    let start = clock.now
    do {
        try await work()
        return (clock.now - start, nil)
    } catch {
        return (clock.now - start, error)
    }
}

private func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("curlhttp-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

@Suite struct RoundTrips {
    @Test func getReturnsStatusHeadersAndBody() async throws {
        try await TestServer.withTCP { port in
            let response = try await client.send(HTTPRequest(url: "http://127.0.0.1:\(port)/hello"))
            #expect(response.status == 200)
            #expect(response.header("x-greeting") == "yes")
            #expect(response.headers.contains { $0.name == "X-Greeting" && $0.value == "yes" })
            #expect(response.text == "hello")
        }
    }

    @Test func postSendsBodyAndHeaders() async throws {
        let payload = Data([0, 1, 2, 255] + Array("binary-safe".utf8))
        try await TestServer.withTCP { port in
            let response = try await client.send(HTTPRequest(
                method: "POST", url: "http://127.0.0.1:\(port)/echo",
                headers: [(name: "Content-Type", value: "application/octet-stream")], body: payload))
            #expect(response.status == 200)
            #expect(response.body == payload)
            #expect(response.header("X-Echo-Content-Type") == "application/octet-stream")
            #expect(response.header("X-Echo-Method") == "POST")
        }
    }

    @Test func postWithoutBodyOrContentTypeIsNotLabelledAsAForm() async throws {
        try await TestServer.withTCP { port in
            let response = try await client.send(HTTPRequest(method: "POST", url: "http://127.0.0.1:\(port)/echo"))
            #expect(response.status == 200)
            #expect(response.body.isEmpty)
            #expect(response.header("X-Echo-Content-Type") == "none")
        }
    }

    @Test func httpErrorStatusIsAResponseNotAnError() async throws {
        try await TestServer.withTCP { port in
            let missing = try await client.send(HTTPRequest(url: "http://127.0.0.1:\(port)/no-such-route"))
            #expect(missing.status == 404)
            let deleted = try await client.send(HTTPRequest(method: "DELETE", url: "http://127.0.0.1:\(port)/item"))
            #expect(deleted.status == 204)
        }
    }

    @Test func unixSocketRoundTrip() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appendingPathComponent("server.sock").path
        try await TestServer.withUnixSocket(path: socket) {
            let response = try await client.send(HTTPRequest(
                method: "POST", url: "http://localhost/echo", body: Data("over a socket".utf8), unixSocketPath: socket))
            #expect(response.status == 200)
            #expect(response.text == "over a socket")
        }
    }

    @Test func fiftyConcurrentRequestsAllSucceed() async throws {
        try await TestServer.withTCP { port in
            let bodies = try await withThrowingTaskGroup(of: String.self) { group in
                for i in 0..<50 {
                    group.addTask {
                        try await client.send(HTTPRequest(
                            method: "POST", url: "http://127.0.0.1:\(port)/echo", body: Data("request \(i)".utf8))).text
                    }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(bodies == Set((0..<50).map { "request \($0)" }))
        }
    }
}

@Suite struct CancellationAndLimits {
    @Test func cancellingALongPollEndsItAtOnce() async throws {
        try await TestServer.withTCP { port in
            let request = Task {
                try await client.send(HTTPRequest(url: "http://127.0.0.1:\(port)/slow?ms=20000"))
            }
            try await Task.sleep(for: .milliseconds(200))
            let (duration, error) = await elapsed {
                request.cancel()
                _ = try await request.value
            }
            #expect(error is CancellationError)
            // The server answers after 20 s: ending well before proves the cancel (milliseconds when idle; the
            // bounds in this file leave room for a loaded 2-core machine and a test starved of threads).
            #expect(duration < .seconds(15))
        }
    }

    @Test func alreadyCancelledTaskFailsAtOnce() async throws {
        try await TestServer.withTCP { port in
            let request = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await client.send(HTTPRequest(url: "http://127.0.0.1:\(port)/slow?ms=20000"))
            }
            let (duration, error) = await elapsed { _ = try await request.value }
            #expect(error is CancellationError)
            // Well before the server's answer at 20 s. Milliseconds when idle; a test starved of threads in the
            // parallel run's first seconds (RSA keys made by a debug BoringSSL) once took 5.1 s.
            #expect(duration < .seconds(15))
        }
    }

    @Test func totalTimeoutFires() async throws {
        try await TestServer.withTCP { port in
            let (duration, error) = await elapsed {
                _ = try await client.send(HTTPRequest(
                    url: "http://127.0.0.1:\(port)/slow?ms=5000", timeout: .milliseconds(300)))
            }
            guard case .timedOut(let message) = error as? HTTPClientError else {
                Issue.record("expected .timedOut, got \(String(describing: error))")
                return
            }
            #expect(message.contains("/slow?ms=5000"))
            // The server answers after 5 s, so `.timedOut` proves the 300 ms timeout fired first; how long the test
            // took to see it depends on when it got a thread again (over 4 s once, in the parallel run's first
            // seconds).
            #expect(duration >= .milliseconds(250))
        }
    }

    @Test(arguments: [false, true])
    func bodyOverTheLimitIsRefused(chunked: Bool) async throws {
        try await TestServer.withTCP { port in
            let url = "http://127.0.0.1:\(port)/big?bytes=100000&chunked=\(chunked ? 1 : 0)"
            await #expect(throws: HTTPClientError.responseTooLarge(limit: 10_000)) {
                try await client.send(HTTPRequest(url: url, maxResponseBytes: 10_000))
            }
            let atLimit = try await client.send(HTTPRequest(url: url, maxResponseBytes: 100_000))
            #expect(atLimit.body.count == 100_000)
        }
    }
}

/// A loopback port that refuses connections, held until `body` returns, so no other test's server can take it
/// meanwhile (a port merely freed can be).
private func withRefusingPort<T>(_ body: (Int) async throws -> T) async throws -> T {
    let reserved = try ReservedLoopbackPort()
    defer { withExtendedLifetime(reserved) {} }
    return try await body(reserved.port)
}

@Suite struct Failures {
    @Test func closedPortIsCouldNotConnect() async throws {
        try await withRefusingPort { port in try await Self.expectCouldNotConnect(port) }
    }

    private static func expectCouldNotConnect(_ port: Int) async throws {
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.send(HTTPRequest(url: "http://127.0.0.1:\(port)/hello"))
        }
        guard case .couldNotConnect = error else {
            Issue.record("expected .couldNotConnect, got \(String(describing: error))")
            return
        }
        let description = error?.description ?? ""
        #expect(description.contains("http://127.0.0.1:\(port)/hello"))
        #expect(description.contains("Connection refused"))
    }

    @Test func missingUnixSocketIsCouldNotConnectNamingThePath() async throws {
        let socket = try temporaryDirectory().appendingPathComponent("absent.sock").path
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.send(HTTPRequest(url: "http://localhost/v1/status", unixSocketPath: socket))
        }
        guard case .couldNotConnect = error else {
            Issue.record("expected .couldNotConnect, got \(String(describing: error))")
            return
        }
        let description = error?.description ?? ""
        #expect(description.contains(socket))
        #expect(description.contains("No such file or directory"))
    }

    @Test func httpsToAPlainHTTPServerIsATLSFailure() async throws {
        try await TestServer.withTCP { port in
            // The handshake fails at once; the bound only needs to outlast a test process busy with other tests,
            // whose in-process server is then slow to answer at all.
            let error = await #expect(throws: HTTPClientError.self) {
                try await client.send(HTTPRequest(url: "https://127.0.0.1:\(port)/hello", timeout: .seconds(20)))
            }
            guard case .tls = error else {
                Issue.record("expected .tls, got \(String(describing: error))")
                return
            }
        }
    }

    @Test func unresolvableHostIsADNSFailure() async throws {
        // .invalid is reserved (RFC 6761) and never resolves.
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.send(HTTPRequest(url: "http://pushagent-test.invalid/", timeout: .seconds(3)))
        }
        guard case .couldNotResolveHost(let message) = error else {
            Issue.record("expected .couldNotResolveHost, got \(String(describing: error))")
            return
        }
        #expect(message.contains("pushagent-test.invalid"))
    }

    @Test(arguments: ["http://exa mple.com/", "ftp://127.0.0.1/file"])
    func malformedOrNonHTTPURLIsInvalidURL(url: String) async throws {
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.send(HTTPRequest(url: url))
        }
        guard case .invalidURL(let message) = error else {
            Issue.record("expected .invalidURL, got \(String(describing: error))")
            return
        }
        #expect(message.contains(url))
    }

    @Test func headerWithLineBreakIsRejectedBeforeSending() async throws {
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.send(HTTPRequest(
                url: "http://127.0.0.1:1/", headers: [(name: "X-Injected", value: "a\r\nHost: evil")]))
        }
        #expect(error?.description.contains("line break") == true)
    }

    @Test func sendAfterShutdownFails() async throws {
        let own = CurlHTTPClient()
        own.shutdown()
        let error = await #expect(throws: HTTPClientError.self) {
            try await own.send(HTTPRequest(url: "http://127.0.0.1:1/"))
        }
        #expect(error?.description.contains("shut down") == true)
    }
}

@Suite struct Streaming {
    @Test func linesArriveBeforeTheResponseEnds() async throws {
        try await TestServer.withTCP { port in
            let response = try await client.stream(HTTPRequest(url: "http://127.0.0.1:\(port)/lines?ms=200&count=3"))
            #expect(response.status == 200)
            #expect(response.header("content-type") == "application/x-ndjson")
            var lines: [String] = []
            for try await line in response.lines { lines.append(String(decoding: line, as: UTF8.self)) }
            #expect(lines == ["line 1", "line 2", "line 3"])
        }
    }

    @Test func theFirstLineIsReadWhileTheServerStillWrites() async throws {
        try await TestServer.withTCP { port in
            // One line, then the server holds the response open for 30 s: only a streamed read sees the line sooner.
            let response = try await client.stream(HTTPRequest(url: "http://127.0.0.1:\(port)/lines?ms=30000&count=2"))
            let clock = ContinuousClock()
            let start = clock.now
            var iterator = response.lines.makeAsyncIterator()
            let first = try await iterator.next()
            #expect(first.map { String(decoding: $0, as: UTF8.self) } == "line 1")
            #expect(clock.now - start < .seconds(15), "the first line came with the end of the response")
        }
    }

    @Test func cancellingTheReaderEndsAnEndlessStreamAtOnce() async throws {
        try await TestServer.withTCP { port in
            let response = try await client.stream(HTTPRequest(url: "http://127.0.0.1:\(port)/lines?ms=50&count=0"))
            let reader = Task {
                var count = 0
                for try await _ in response.lines { count += 1 }
                return count
            }
            try await Task.sleep(for: .milliseconds(200))
            let (waited, _) = await elapsed {
                reader.cancel()
                _ = try? await reader.value
            }
            // The stream never ends by itself, so ending at all proves the cancel; the bound only leaves room for a
            // loaded machine (about a millisecond when idle; a full parallel CI run on 2 CPUs once took 2.04 s) while
            // still telling a cancel from a transfer timeout.
            #expect(waited < .seconds(10), "cancellation ended the transfer after \(waited)")
            // The client is still usable: the aborted transfer left nothing behind.
            #expect(try await client.send(HTTPRequest(url: "http://127.0.0.1:\(port)/hello")).text == "hello")
        }
    }

    @Test func errorStatusArrivesAsAHeadWithItsBody() async throws {
        try await TestServer.withTCP { port in
            let response = try await client.stream(HTTPRequest(url: "http://127.0.0.1:\(port)/no-such-route"))
            #expect(response.status == 404)
            for try await _ in response.body {}
        }
    }

    @Test func connectFailureIsThrownBeforeAnyHead() async throws {
        try await withRefusingPort { port in
            await #expect(throws: HTTPClientError.self) {
                _ = try await client.stream(HTTPRequest(url: "http://127.0.0.1:\(port)/lines", connectTimeout: .seconds(2)))
            }
        }
    }
}

@Suite struct ResponseHeaders {
    /// Headers as a server may write them, which the in-process server never does: an interim response first, space
    /// and tabs around a value, an empty value.
    @Test func interimResponsesAreDroppedAndValuesTrimmed() async throws {
        let reply = "HTTP/1.1 100 Continue\r\nX-Interim: dropped\r\n\r\n"
            + "HTTP/1.1 200 OK\r\nX-Padded: \t padded value \t\r\nX-Empty:\r\nX-Tight:tight\r\nContent-Length: 2\r\n\r\nok"
        let port = try RawReplyServer.start(replying: reply)
        let response = try await client.send(HTTPRequest(url: "http://127.0.0.1:\(port)/"))
        #expect(response.status == 200)
        #expect(response.text == "ok")
        #expect(response.header("X-Interim") == nil)
        #expect(response.header("x-padded") == "padded value")
        #expect(response.header("X-Empty") == "")
        #expect(response.header("X-Tight") == "tight")
        #expect(response.headers.map(\.name) == ["X-Padded", "X-Empty", "X-Tight", "Content-Length"])
    }
}

/// Answers one connection with fixed bytes, whatever was asked, then closes it.
private enum RawReplyServer {
    static func start(replying reply: String) throws -> Int {
        let (listener, port) = try ListeningSocket.loopback()
        Thread.detachNewThread {
            defer { close(listener) }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            defer { close(connection) }
            var request: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !request.suffix(4).elementsEqual("\r\n\r\n".utf8) {
                let count = read(connection, &buffer, buffer.count)
                guard count > 0 else { return }
                request += buffer[..<count]
            }
            _ = Array(reply.utf8).withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
        }
        return port
    }
}
