import ConnectionGuards
import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypesHTTP1
import Synchronization
@testable import PushRelay

/// One answer as the client reads it off the wire.
struct WireResponse {
    let status: Int
    /// By lowercased name.
    let headers: [String: String]
    let body: String

    func header(_ name: String) -> String? { headers[name.lowercased()] }
    /// Whether the answer tells the client the connection ends with it.
    var closes: Bool { header("connection")?.lowercased() == "close" }
}

/// What the test routes were asked, in order, and the responders of the requests they hold unanswered.
final class RouteLog: Sendable {
    private let state = Mutex<(requests: [String], held: [RelayResponder])>(([], []))

    func record(_ request: String) { state.withLock { $0.requests.append(request) } }
    var requests: [String] { state.withLock { $0.requests } }

    func hold(_ responder: RelayResponder) { state.withLock { $0.held.append(responder) } }

    /// The responder of the next held request, once its route has run (routes run in a task of their own).
    func nextHeld() async throws -> RelayResponder {
        try await eventuallyValue("a request to be held") {
            state.withLock { $0.held.isEmpty ? nil : $0.held.removeFirst() }
        }
    }
}

/// Polls `value` until it is not nil, for up to five seconds. (Not `eventually`: with a closure returning a Bool,
/// that name would also match ClusterHarness's, and `false` is not nil.)
@discardableResult
func eventuallyValue<T>(_ what: @autoclosure () -> String, _ value: () async throws -> T?) async throws -> T {
    for _ in 0..<2500 {
        if let value = try await value() { return value }
        try await Task.sleep(for: .milliseconds(2))
    }
    let description = what()
    throw TestFailure("waited 5 s for \(description)")
}

/// A small real router: each route records what it was asked, so a test can tell what the relay acted on.
func testRouter(_ log: RouteLog) -> RelayRouter {
    var router = RelayRouter()
    router.add(.get, "/echo/:name") { request in
        log.record("GET /echo/\(request.parameters["name"] ?? "")")
        return .text(.ok, "hello \(request.parameters["name"] ?? "")")
    }
    router.add(.get, "/items") { _ in
        log.record("GET /items")
        return .text(.ok, "items")
    }
    // Reads up to 16 bytes and answers as the relay's own routes do when the body could not be read.
    router.add(.post, "/items", maxBody: 16) { request in
        switch request.body {
        case .success(let body):
            log.record("POST /items \(String(buffer: body))")
            return .text(.created, "stored \(String(buffer: body))")
        case .failure(let failure):
            log.record("POST /items failed: \(failure.message)")
            if case .tooLarge = failure { return .text(.contentTooLarge, failure.message) }
            return .text(.badRequest, failure.message)
        }
    }
    router.add(.delete, "/items/:id") { request in
        log.record("DELETE /items/\(request.parameters["id"] ?? "")")
        return .text(.ok, "deleted")
    }
    // Answers later, through its responder: a long-poll as the relay's poll route is one.
    router.add(.get, "/wait") { request in
        log.record("GET /wait")
        log.hold(request.responder)
        return nil
    }
    router.add(.get, "/fail") { _ in
        log.record("GET /fail")
        throw TestFailure("the route failed")
    }
    return router
}

/// One relay connection in this process: the codec stack `RelayHTTPServer` builds, ending in `RelayHTTPHandler`,
/// on a `NIOAsyncTestingChannel`. Not `EmbeddedChannel`: the handler answers from the task its route runs in, on
/// another thread, and the embedded event loop may only be touched from the thread that made it.
final class RelayTestConnection {
    let channel: NIOAsyncTestingChannel
    let routes: RouteLog
    private var received = ByteBuffer()
    private var parsed: [WireResponse] = []

    private init(channel: NIOAsyncTestingChannel, routes: RouteLog) {
        self.channel = channel
        self.routes = routes
    }

    /// Runs `body` on a new connection, and frees the channel and its loop afterwards, also when `body` throws.
    /// With `requestTimeout`, the connection has the server's `RequestDeadlineHandler` too.
    static func with(requestTimeout: TimeAmount? = nil, _ body: (RelayTestConnection) async throws -> Void) async throws {
        let routes = RouteLog()
        let router = testRouter(routes)
        let channel = try await NIOAsyncTestingChannel { channel in
            // The server's own handlers.
            try RelayHTTPServer.addHTTPHandlers(
                to: channel.pipeline.syncOperations, router: router,
                logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() },
                deadline: requestTimeout.map { RelayRequestDeadline(timeout: $0) })
        }
        // The handler writes nothing to a connection that is not active.
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).get()
        let connection = RelayTestConnection(channel: channel, routes: routes)
        do {
            try await body(connection)
        } catch {
            await connection.free()
            throw error
        }
        await connection.free()
    }

    private func free() async {
        _ = try? await channel.finish(acceptAlreadyClosed: true)
        await channel.testingEventLoop.shutdownGracefully()
    }

    func send(_ text: String) async throws {
        try await channel.writeInbound(ByteBuffer(string: text))
    }

    /// What the event loop delivers when the client shuts its side down (`allowRemoteHalfClosure`, as the server sets).
    func clientHalfCloses() async throws {
        try await channel.testingEventLoop.executeInContext { [channel] in
            channel.pipeline.syncOperations.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        }
    }

    /// What `ConnectionSlots.quiesce` sends each connection on graceful shutdown.
    func serverQuiesces() async throws {
        try await channel.testingEventLoop.executeInContext { [channel] in
            channel.pipeline.syncOperations.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        }
    }

    var isOpen: Bool { channel.isActive }

    func waitUntilClosed() async throws {
        try await eventuallyValue("the connection to close") { channel.isActive ? nil : true }
    }

    /// The next `count` answers, waiting up to five seconds for them to be written.
    func responses(_ count: Int) async throws -> [WireResponse] {
        try await eventuallyValue("\(count) answers, got \(parsed.count) and \(received.readableBytes) bytes more") {
            try await readWritten()
            return parsed.count >= count ? () : nil
        }
        defer { parsed.removeFirst(count) }
        return Array(parsed.prefix(count))
    }

    func response() async throws -> WireResponse { try await responses(1)[0] }

    /// True when the connection has written nothing not yet read by `responses`.
    func wroteNothingMore() async throws -> Bool {
        try await readWritten()
        return parsed.isEmpty && received.readableBytes == 0
    }

    private func readWritten() async throws {
        while let chunk = try await channel.readOutbound(as: ByteBuffer.self) { received.writeImmutableBuffer(chunk) }
        while let response = try parseOne() { parsed.append(response) }
    }

    /// One whole answer off the front of what was written, if there is one: the relay always sends Content-Length.
    private func parseOne() throws -> WireResponse? {
        let text = String(buffer: received)
        guard let headEnd = text.range(of: "\r\n\r\n") else { return nil }
        var lines = text[..<headEnd.lowerBound].components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw TestFailure("not an answer: \(text)") }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw TestFailure("bad header line: \(line)") }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let headBytes = text[..<headEnd.upperBound].utf8.count
        let length = Int(headers["content-length"] ?? "0") ?? 0
        guard received.readableBytes >= headBytes + length else { return nil }
        received.moveReaderIndex(forwardBy: headBytes)
        let body = received.readString(length: length) ?? ""
        received.discardReadBytes()
        return WireResponse(status: status, headers: headers, body: body)
    }
}
