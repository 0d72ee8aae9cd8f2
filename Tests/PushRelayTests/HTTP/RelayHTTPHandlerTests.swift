import Logging
import NIOCore
import NIOEmbedded
import Synchronization
import Testing
@testable import PushRelay

/// `RelayHTTPHandler` behind the server's codecs, one request at a time: what it answers, what it hands its
/// routes, and when it closes. The process-level tests (IntegrationTests/RelayHTTPTests) see the same from outside.
@Suite("RelayHTTPHandler: requests and answers")
struct RelayHTTPHandlerTests {
    @Test func answersRequestsOneAfterAnotherOnAKeptConnection() async throws {
        try await RelayTestConnection.with { connection in
            try await connection.send("GET /echo/ann HTTP/1.1\r\nHost: relay\r\n\r\n")
            let first = try await connection.response()
            #expect(first.status == 200)
            #expect(first.body == "hello ann")
            #expect(first.header("content-length") == "9")
            #expect(!first.closes)
            #expect(connection.isOpen)

            try await connection.send("GET /items HTTP/1.1\r\nHost: relay\r\n\r\n")
            #expect(try await connection.response().body == "items")
            #expect(connection.routes.requests == ["GET /echo/ann", "GET /items"])
        }
    }

    @Test func aBodyWithinItsRouteLimitReachesTheRouteWhole() async throws {
        try await RelayTestConnection.with { connection in
            try await connection.send("POST /items HTTP/1.1\r\nHost: relay\r\nContent-Length: 5\r\n\r\nab")
            try await connection.send("cde")
            #expect(try await connection.response().body == "stored abcde")
            // Chunked, in pieces that together reach the limit exactly.
            try await connection.send(
                "POST /items HTTP/1.1\r\nHost: relay\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n12345678\r\n8\r\nabcdefgh\r\n0\r\n\r\n")
            #expect(try await connection.response().status == 201)
            #expect(connection.routes.requests == ["POST /items abcde", "POST /items 12345678abcdefgh"])
        }
    }

    /// The route acts on nothing: it is not even called. The connection closes, as the body it announced is not read.
    @Test func aDeclaredBodyOnARouteThatReadsNoneIsRefusedUnreadAndNotActedOn() async throws {
        try await RelayTestConnection.with { connection in
            try await connection.send("DELETE /items/7 HTTP/1.1\r\nHost: relay\r\nContent-Length: 5\r\n\r\nhello")
            let answer = try await connection.response()
            #expect(answer.status == 413)
            #expect(answer.body == "this endpoint takes no request body\n")
            #expect(answer.closes)
            try await connection.waitUntilClosed()
            #expect(connection.routes.requests.isEmpty)
        }
    }

    /// A chunked body is read to its end (only to be dropped), so the connection can go on.
    @Test func aChunkedBodyOnARouteThatReadsNoneIsRefusedAndTheConnectionServesOn() async throws {
        try await RelayTestConnection.with { connection in
            try await connection.send(
                "DELETE /items/7 HTTP/1.1\r\nHost: relay\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
                    + "GET /echo/bob HTTP/1.1\r\nHost: relay\r\n\r\n")
            let answers = try await connection.responses(2)
            #expect(answers.map(\.status) == [413, 200])
            #expect(!answers[0].closes)
            #expect(connection.routes.requests == ["GET /echo/bob"])
        }
    }

    /// Refused on its Content-Length: not asked for with 100 Continue, and its route told why.
    @Test func aDeclaredBodyOverTheRouteLimitIsRefusedWithoutAskingForIt() async throws {
        try await RelayTestConnection.with { connection in
            try await connection.send(
                "POST /items HTTP/1.1\r\nHost: relay\r\nContent-Length: 17\r\nExpect: 100-continue\r\n\r\n")
            let answer = try await connection.response()
            #expect(answer.status == 413)
            #expect(answer.body == "Request payload size exceeds the limit: 16 bytes.")
            #expect(answer.closes)
            try await connection.waitUntilClosed()
            #expect(connection.routes.requests == ["POST /items failed: Request payload size exceeds the limit: 16 bytes."])
        }
    }

    /// A chunked body that grows past the limit is not kept; the route is told when the request ends.
    @Test func aBodyThatGrowsPastTheLimitIsDroppedAndItsRouteTold() async throws {
        try await RelayTestConnection.with { connection in
            try await connection.send(
                "POST /items HTTP/1.1\r\nHost: relay\r\nTransfer-Encoding: chunked\r\n\r\n9\r\n123456789\r\n9\r\n123456789\r\n")
            #expect(connection.routes.requests.isEmpty)
            try await connection.send("0\r\n\r\nGET /items HTTP/1.1\r\nHost: relay\r\n\r\n")
            let answers = try await connection.responses(2)
            #expect(answers.map(\.status) == [413, 200])
            #expect(connection.routes.requests.first == "POST /items failed: Request payload size exceeds the limit: 16 bytes.")
        }
    }

    @Test func aBodyHeldBackFor100ContinueIsAskedFor() async throws {
        try await RelayTestConnection.with { connection in
            try await connection.send("POST /items HTTP/1.1\r\nHost: relay\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n")
            #expect(try await connection.response().status == 100)
            #expect(connection.routes.requests.isEmpty)
            try await connection.send("abc")
            #expect(try await connection.response().body == "stored abc")
        }
    }

    @Test func aWrongMethodGets405NamingTheAllowedOnesAndAnUnknownPath404() async throws {
        try await RelayTestConnection.with { connection in
            try await connection.send("PUT /items HTTP/1.1\r\nHost: relay\r\n\r\nGET /nowhere HTTP/1.1\r\nHost: relay\r\n\r\n")
            let answers = try await connection.responses(2)
            #expect(answers[0].status == 405)
            #expect(answers[0].header("allow") == "GET, POST")
            #expect(answers[1].status == 404)
            #expect(answers[1].body == "no such endpoint: GET /nowhere\n")
            #expect(connection.isOpen)
            #expect(connection.routes.requests.isEmpty)
        }
    }

    @Test func aMalformedRequestGets400AndTheConnectionCloses() async throws {
        try await RelayTestConnection.with { connection in
            try await connection.send("this is not HTTP\r\n\r\n")
            let answer = try await connection.response()
            #expect(answer.status == 400)
            #expect(answer.body.hasPrefix("malformed HTTP request"))
            #expect(answer.closes)
            try await connection.waitUntilClosed()
        }
    }

    /// The failure is logged, not shown: the client gets a 500 and can go on using the connection.
    @Test func aRouteThatThrowsGets500AndTheConnectionServesOn() async throws {
        try await RelayTestConnection.with { connection in
            try await connection.send("GET /fail HTTP/1.1\r\nHost: relay\r\n\r\nGET /items HTTP/1.1\r\nHost: relay\r\n\r\n")
            let answers = try await connection.responses(2)
            #expect(answers.map(\.status) == [500, 200])
            #expect(!answers[0].body.contains("the route failed"))
            #expect(connection.isOpen)
        }
    }

    @Test func connectionCloseIsHonouredAndWhatFollowsIsNotServed() async throws {
        try await RelayTestConnection.with { connection in
            try await connection.send(
                "GET /echo/ann HTTP/1.1\r\nHost: relay\r\nConnection: close\r\n\r\nGET /echo/bob HTTP/1.1\r\nHost: relay\r\n\r\n")
            let answer = try await connection.response()
            #expect(answer.body == "hello ann")
            #expect(answer.closes)
            try await connection.waitUntilClosed()
            #expect(try await connection.wroteNothingMore())
            #expect(connection.routes.requests == ["GET /echo/ann"])
        }
    }

    @Test func anHTTP10RequestWithoutKeepAliveIsAnsweredThenClosed() async throws {
        try await RelayTestConnection.with { connection in
            try await connection.send("GET /echo/ann HTTP/1.0\r\n\r\n")
            let answer = try await connection.response()
            #expect(answer.status == 200)
            #expect(answer.closes)
            try await connection.waitUntilClosed()
        }
    }

    @Test func anHTTP10RequestThatAsksForKeepAliveKeepsItsConnection() async throws {
        try await RelayTestConnection.with { connection in
            try await connection.send("GET /echo/ann HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            let answer = try await connection.response()
            #expect(answer.status == 200)
            #expect(!answer.closes)
            try await connection.send("GET /echo/bob HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(try await connection.response().body == "hello bob")
            #expect(connection.isOpen)
        }
    }

    /// An HTTP/1.0 client that says `Connection: Close` in other words still gets one Connection field back.
    @Test func anHTTP10RequestAskingToCloseGetsOneConnectionField() async throws {
        try await RelayTestConnection.with { connection in
            try await connection.send("GET /echo/ann HTTP/1.0\r\nConnection: Close\r\n\r\n")
            let answer = try await connection.response()
            #expect(answer.header("connection") == "close")
            try await connection.waitUntilClosed()
        }
    }

    /// A client that sends without reading its answers is not read while they wait to be sent, and is read again
    /// once they went out.
    @Test func aConnectionThatCannotTakeMoreAnswersIsNotReadUntilItCan() async throws {
        let reads = ReadCounter()
        let channel = try await NIOAsyncTestingChannel { channel in
            try channel.pipeline.syncOperations.addHandler(reads)
            try RelayHTTPServer.addHTTPHandlers(
                to: channel.pipeline.syncOperations, router: testRouter(RouteLog()),
                logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, deadline: nil)
        }
        func writability(_ writable: Bool) async throws {
            try await channel.testingEventLoop.executeInContext {
                channel.isWritable = writable
                channel.pipeline.fireChannelWritabilityChanged()
            }
        }
        func read() async throws { try await channel.testingEventLoop.executeInContext { channel.read() } }

        do {
            try await read()
            #expect(reads.count == 1)
            try await writability(false)
            try await read()
            #expect(reads.count == 1, "held while the answers wait")
            try await writability(true)
            #expect(reads.count == 2, "made once they can go")
            try await read()
            #expect(reads.count == 3)
        } catch {
            _ = try? await channel.finish(acceptAlreadyClosed: true)
            throw error
        }
        _ = try? await channel.finish(acceptAlreadyClosed: true)
    }
}

/// Counts the reads that reach the socket.
private final class ReadCounter: ChannelOutboundHandler, Sendable {
    typealias OutboundIn = NIOAny
    private let reads = Atomic(0)

    var count: Int { reads.load(ordering: .relaxed) }

    func read(context: ChannelHandlerContext) {
        reads.add(1, ordering: .relaxed)
        context.read()
    }
}
