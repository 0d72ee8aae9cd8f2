import NIOCore
import Synchronization
import Testing
@testable import PushRelay

/// `RelayHTTPHandler` while an answer is pending: what it does with requests sent behind it, with a client that
/// half-closes or stalls, and with a server that shuts down.
@Suite("RelayHTTPHandler: pipelining and the connection's end")
struct RelayHTTPHandlerPipeliningTests {
    private static func get(_ path: String) -> String { "GET \(path) HTTP/1.1\r\nHost: relay\r\n\r\n" }

    /// Answers the held request, and expects the connection to end with `last` (that answer itself when nil).
    private static func wakeForTheLastAnswer(_ waiting: RelayResponder, _ connection: RelayTestConnection,
                                             then last: Int? = nil) async throws {
        waiting.send(.text(.ok, "woken"))
        let answers = try await connection.responses(last == nil ? 1 : 2)
        #expect(answers[0].body == "woken")
        #expect(answers.map(\.status).dropFirst() == (last.map { [$0] } ?? []))
        #expect(answers.last?.closes == true)
        try await connection.waitUntilClosed()
        #expect(try await connection.wroteNothingMore())
    }

    /// Requests behind a waiting long-poll are not even handed to their routes before it is answered.
    @Test func pipelinedRequestsWaitForTheAnswerBeforeThemAndAreAnsweredInOrder() async throws {
        try await RelayTestConnection.with { connection in
            try await connection.send(Self.get("/wait") + Self.get("/echo/ann") + Self.get("/echo/bob"))
            let waiting = try await connection.routes.nextHeld()
            #expect(connection.routes.requests == ["GET /wait"])
            #expect(try await connection.wroteNothingMore())

            waiting.send(.text(.ok, "woken"))
            let answers = try await connection.responses(3)
            #expect(answers.map(\.body) == ["woken", "hello ann", "hello bob"])
            #expect(connection.routes.requests == ["GET /wait", "GET /echo/ann", "GET /echo/bob"])
            #expect(connection.isOpen)
        }
    }

    /// Nothing sent behind a request that closes the connection reaches a route, also when that request would be
    /// answered at once, without a task (a 404 here, as a poll answered from memory would be): the decoder refuses
    /// bytes after it, and the connection closes with that request's answer (issue 43: it was closed unanswered,
    /// with the answer before it).
    @Test func nothingBehindARequestThatClosesReachesItsRoute() async throws {
        try await RelayTestConnection.with { connection in
            try await connection.send(Self.get("/wait") + "GET /nowhere HTTP/1.1\r\nHost: relay\r\nConnection: close\r\n\r\n"
                + Self.get("/echo/ann"))
            let waiting = try await connection.routes.nextHeld()
            try await Self.wakeForTheLastAnswer(waiting, connection, then: 404)
            #expect(connection.routes.requests == ["GET /wait"])
        }
    }

    /// A route holding its answer (a waiting long-poll) is told when its client leaves, and one that asks after that
    /// is told at once.
    @Test func aRouteHoldingItsAnswerIsToldWhenTheClientLeaves() async throws {
        try await RelayTestConnection.with { connection in
            let told = Mutex<[String]>([])
            try await connection.send(Self.get("/wait"))
            let waiting = try await connection.routes.nextHeld()
            waiting.whenClientGone { told.withLock { $0.append("waiting") } }
            try await connection.channel.close()
            try await eventuallyValue("the route to be told") { told.withLock { $0 } == ["waiting"] ? true : nil }

            waiting.whenClientGone { told.withLock { $0.append("asked after") } }
            try await eventuallyValue("the late ask to be told") { told.withLock { $0.count } == 2 ? true : nil }
            #expect(told.withLock { $0 } == ["waiting", "asked after"])
        }
    }

    /// Once its request is answered, a route is not told of its client leaving, whenever it asked.
    @Test func aRouteThatAnsweredIsNotToldWhenTheClientLeaves() async throws {
        try await RelayTestConnection.with { connection in
            let told = Mutex(0)
            try await connection.send(Self.get("/wait"))
            let answered = try await connection.routes.nextHeld()
            answered.whenClientGone { told.withLock { $0 += 1 } }
            answered.send(.text(.ok, "answered"))
            #expect(try await connection.response().body == "answered")
            try await connection.channel.close()
            answered.whenClientGone { told.withLock { $0 += 1 } }
            // Both asks and the close are on the loop's queue before this.
            try await connection.channel.testingEventLoop.executeInContext {}
            #expect(told.withLock { $0 } == 0)
        }
    }

    /// A responder answers only the request it was made for; a stale one, or a second answer, is dropped.
    @Test func anAnswerForARequestNoLongerAwaitedIsDropped() async throws {
        try await RelayTestConnection.with { connection in
            try await connection.send(Self.get("/wait"))
            let first = try await connection.routes.nextHeld()
            first.send(.text(.ok, "first"))
            #expect(try await connection.response().body == "first")

            try await connection.send(Self.get("/wait"))
            let second = try await connection.routes.nextHeld()
            first.send(.text(.ok, "first again"))
            #expect(try await connection.wroteNothingMore())
            second.send(.text(.ok, "second"))
            #expect(try await connection.response().body == "second")
        }
    }

    /// 64 parts may wait (a request without a body is two: head and end); the 65th closes the connection.
    @Test(arguments: [(requests: 32, closes: false), (requests: 33, closes: true)])
    func whatWaitsBehindAnAnswerIsBoundedInParts(requests: Int, closes: Bool) async throws {
        try await RelayTestConnection.with { connection in
            try await connection.send(Self.get("/wait"))
            let waiting = try await connection.routes.nextHeld()
            try await connection.send(String(repeating: Self.get("/items"), count: requests))
            #expect(connection.isOpen == !closes)

            waiting.send(.text(.ok, "woken"))
            if closes {
                #expect(try await connection.wroteNothingMore())
                #expect(connection.routes.requests == ["GET /wait"])
            } else {
                let answers = try await connection.responses(1 + requests)
                #expect(answers.dropFirst().allSatisfy { $0.body == "items" })
            }
        }
    }

    /// A body sent behind a waiting answer is kept only up to 64 KiB, whatever its route would read.
    @Test func aLargeBodyBehindAWaitingAnswerClosesTheConnection() async throws {
        try await RelayTestConnection.with { connection in
            try await connection.send(Self.get("/wait"))
            _ = try await connection.routes.nextHeld()
            try await connection.send("POST /items HTTP/1.1\r\nHost: relay\r\nContent-Length: 70000\r\n\r\n")
            try await connection.send(String(repeating: "x", count: 32 * 1024))
            #expect(connection.isOpen)
            try await connection.send(String(repeating: "x", count: 32 * 1024))
            #expect(!connection.isOpen)
        }
    }

    /// Whatever was sent before the client shut its side is still answered; the last answer says the connection ends.
    @Test func aClientThatHalfClosesGetsItsAnswersThenTheConnectionCloses() async throws {
        try await RelayTestConnection.with { connection in
            try await connection.send(Self.get("/wait") + Self.get("/echo/ann"))
            let waiting = try await connection.routes.nextHeld()
            try await connection.clientHalfCloses()
            #expect(connection.isOpen)

            waiting.send(.text(.ok, "woken"))
            let answers = try await connection.responses(2)
            #expect(answers.map(\.body) == ["woken", "hello ann"])
            #expect(answers.map(\.closes) == [false, true])
            try await connection.waitUntilClosed()
        }
    }

    @Test func aClientThatHalfClosesBetweenRequestsIsClosedAtOnce() async throws {
        try await RelayTestConnection.with { connection in
            try await connection.send(Self.get("/items"))
            #expect(try await connection.response().status == 200)
            try await connection.clientHalfCloses()
            #expect(!connection.isOpen)
        }
    }

    /// The route is still called, so it can answer in its API's own words; nothing more is read.
    @Test func aClientThatHalfClosesMidBodyHasItsRouteToldTheBodyIsIncomplete() async throws {
        try await RelayTestConnection.with { connection in
            try await connection.send("POST /items HTTP/1.1\r\nHost: relay\r\nContent-Length: 10\r\n\r\nabc")
            try await connection.clientHalfCloses()
            let answer = try await connection.response()
            #expect(answer.status == 400)
            #expect(answer.body == "The request body is incomplete: the client closed its side before all of it arrived.")
            #expect(answer.closes)
            try await connection.waitUntilClosed()
        }
    }

    /// With the server's request deadline: a stalled body is its route's to answer, then the connection closes.
    @Test func aStalledBodyReachesItsRouteAsIncompleteAtTheDeadline() async throws {
        try await RelayTestConnection.with(requestTimeout: .seconds(5)) { connection in
            try await connection.send("POST /items HTTP/1.1\r\nHost: relay\r\nContent-Length: 10\r\n\r\nabc")
            await connection.channel.testingEventLoop.advanceTime(by: .seconds(4))
            #expect(connection.routes.requests.isEmpty)
            await connection.channel.testingEventLoop.advanceTime(by: .seconds(1))
            let answer = try await connection.response()
            #expect(answer.status == 400)
            #expect(answer.body == "The request body is incomplete: 5 s passed before all of it arrived.")
            #expect(answer.closes)
            try await connection.waitUntilClosed()
        }
    }

    /// Nothing past malformed bytes can be read, but the answer pending before them still goes out, then their 400,
    /// which ends the connection (issue 43: the connection ended with the answer before, the malformed request
    /// unanswered).
    @Test func aMalformedRequestBehindAWaitingAnswerEndsTheConnectionAfterThatAnswer() async throws {
        try await RelayTestConnection.with { connection in
            try await connection.send(Self.get("/wait"))
            let waiting = try await connection.routes.nextHeld()
            try await connection.send("this is not HTTP\r\n\r\n")
            #expect(connection.isOpen)
            try await Self.wakeForTheLastAnswer(waiting, connection, then: 400)
        }
    }

    @Test func onShutdownAnIdleConnectionClosesAtOnce() async throws {
        try await RelayTestConnection.with { connection in
            try await connection.serverQuiesces()
            #expect(!connection.isOpen)
        }
    }

    /// A waiting long-poll is let finish, and its answer tells the client not to send more on this connection.
    @Test func onShutdownABusyConnectionClosesAfterItsAnswer() async throws {
        try await RelayTestConnection.with { connection in
            try await connection.send(Self.get("/wait") + Self.get("/items"))
            let waiting = try await connection.routes.nextHeld()
            try await connection.serverQuiesces()
            #expect(connection.isOpen)
            try await Self.wakeForTheLastAnswer(waiting, connection)
            #expect(connection.routes.requests == ["GET /wait"])
        }
    }
}
