import ConnectionGuards
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import Testing

/// The handler as Hummingbird's pipeline (the agent's control API) carries it, on the HTTP types' parts; the relay's
/// runs on the HTTP/1 codec's own, through `RelayHTTPHandlerTests`.
typealias HTTPTypesRequestDeadline = RequestDeadlineHandler<HTTPRequestPart, HTTPResponsePart>

/// `RequestDeadlineHandler` on an `EmbeddedChannel` whose clock the tests move: when the clock runs, when it stops,
/// and what happens when it runs out.
@Suite("RequestDeadlineHandler")
struct RequestDeadlineHandlerTests {
    static let timeout = TimeAmount.seconds(10)
    static let head = HTTPRequestPart.head(HTTPRequest(method: .post, scheme: "http", authority: "relay", path: "/v1/poll"))

    @Test func closesAConnectionThatSendsNoHeadWithinTheTimeout() throws {
        let channel = try deadlineConnection()
        defer { release(channel) }
        // Nobody is reading a request yet, so nobody is told.
        expectClosedWhenTheTimeoutRunsOut(channel)
    }

    /// A per-read idle timer would let a byte every second keep the connection forever; this clock is for the request.
    @Test func bytesTrickledSlowerThanAWholeHeadDoNotKeepTheConnection() throws {
        let channel = EmbeddedChannel()
        defer { release(channel) }
        let pipeline = channel.pipeline.syncOperations
        try pipeline.configureHTTPServerPipeline(
            withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false,
            withEncoderConfiguration: .init(), withDecoderLimitConfiguration: .init())
        try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
        try pipeline.addHandler(HTTPTypesRequestDeadline(timeout: Self.timeout))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()

        for byte in "GET /healthz HTTP/1.1\r\n".utf8.prefix(10) {
            try channel.writeInbound(ByteBuffer(bytes: [byte]))
            channel.embeddedEventLoop.advanceTime(by: .milliseconds(999))
            #expect(channel.isActive)
        }
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(10))
        #expect(!channel.isActive)
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == nil)
    }

    /// Body chunks do not move the deadline: the head and all of its body are due within the one timeout.
    @Test func aStalledBodyGetsRequestDeadlineExceededAndIsClosedAGraceLaterEvenIfAnswered() throws {
        let channel = try deadlineConnection()
        defer { release(channel) }
        try channel.writeInbound(Self.head)
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "abc")))
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        let exceeded = #expect(throws: RequestDeadlineExceeded.self) { try channel.throwIfErrorCaught() }
        #expect(exceeded?.timeout == Self.timeout)
        #expect(channel.isActive)
        // What arrived still reached the handler behind, which answers the request in its own words.
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == Self.head)
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == .body(ByteBuffer(string: "abc")))

        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .badRequest)))
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(999))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive)
    }

    /// Answering takes as long as it takes (a long-poll); only the end of the answer, not its head, restarts the clock.
    @Test func theClockStopsWhileAnAnswerIsPendingAndRestartsWhenItEnds() throws {
        let channel = try deadlineConnection()
        defer { release(channel) }
        try channel.writeInbound(Self.head)
        try channel.writeInbound(HTTPRequestPart.end(nil))
        channel.embeddedEventLoop.advanceTime(by: Self.timeout * 100)
        #expect(channel.isActive)
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
        channel.embeddedEventLoop.advanceTime(by: Self.timeout * 100)
        #expect(channel.isActive)

        try channel.writeOutbound(HTTPResponsePart.end(nil))
        expectClosedWhenTheTimeoutRunsOut(channel)
    }

    /// The connection keeps one timer across requests: a wait that starts while the timer an earlier wait set is
    /// still running gets its own whole timeout, not what was left of the earlier one's.
    @Test func eachWaitGetsItsWholeTimeoutThoughTheTimerOfAnEarlierOneIsStillSet() throws {
        let channel = try deadlineConnection()
        defer { release(channel) }
        for _ in 0..<3 {
            channel.embeddedEventLoop.advanceTime(by: .seconds(6))
            try channel.writeInbound(Self.head)
            try channel.writeInbound(HTTPRequestPart.end(nil))
            try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
            try channel.writeOutbound(HTTPResponsePart.end(nil))
        }
        expectClosedWhenTheTimeoutRunsOut(channel)
    }

    @Test func theClockStaysStoppedUntilTheLastPipelinedRequestIsAnswered() throws {
        let channel = try deadlineConnection()
        defer { release(channel) }
        for _ in 0..<2 {
            try channel.writeInbound(Self.head)
            try channel.writeInbound(HTTPRequestPart.end(nil))
        }
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        channel.embeddedEventLoop.advanceTime(by: Self.timeout * 100)
        #expect(channel.isActive)

        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        channel.embeddedEventLoop.advanceTime(by: Self.timeout)
        #expect(!channel.isActive)
    }

    /// The server adds the handler to a connection that is already active: that starts the clock too.
    @Test func addedToAnActiveConnectionItStartsTheClockAndRemovedItStopsIt() throws {
        let channel = EmbeddedChannel()
        defer { release(channel) }
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        try channel.pipeline.syncOperations.addHandler(HTTPTypesRequestDeadline(timeout: Self.timeout), name: "deadline")
        channel.embeddedEventLoop.advanceTime(by: Self.timeout - .nanoseconds(1))
        try channel.pipeline.removeHandler(name: "deadline").wait()
        channel.embeddedEventLoop.advanceTime(by: Self.timeout * 100)
        #expect(channel.isActive)

        try channel.pipeline.syncOperations.addHandler(HTTPTypesRequestDeadline(timeout: Self.timeout))
        channel.embeddedEventLoop.advanceTime(by: Self.timeout)
        #expect(!channel.isActive)
    }

    /// A long-poll whose client went away is not kept until its own deadline; the handler behind still hears of it.
    @Test(arguments: [true, false])
    func aHalfCloseWhileAnAnswerIsPendingClosesOnlyWithAbandonsAnswerOnClientClose(abandons: Bool) throws {
        let events = EventRecorder()
        let channel = try deadlineConnection(abandonsAnswerOnClientClose: abandons, then: events)
        defer { release(channel) }
        try channel.writeInbound(Self.head)
        try channel.writeInbound(HTTPRequestPart.end(nil))
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(channel.isActive == !abandons)
        #expect(events.inputClosed == 1)
    }

    /// Idle, the handler behind closes the connection itself; mid-request, it is told the body is incomplete. Neither
    /// is an abandoned answer.
    @Test(arguments: [0, 1])
    func aHalfCloseWithNoAnswerPendingIsLeftToTheHandlerBehind(partsSent: Int) throws {
        let events = EventRecorder()
        let channel = try deadlineConnection(abandonsAnswerOnClientClose: true, then: events)
        defer { release(channel) }
        if partsSent > 0 { try channel.writeInbound(Self.head) }
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(channel.isActive)
        #expect(events.inputClosed == 1)
    }
}

/// An active connection with a `RequestDeadlineHandler` (and `then`, when given, behind it).
func deadlineConnection(
    tracker: (any ConnectionTracker)? = nil, abandonsAnswerOnClientClose: Bool = false, then next: (any ChannelHandler)? = nil
) throws -> EmbeddedChannel {
    let channel = EmbeddedChannel()
    try channel.pipeline.syncOperations.addHandler(HTTPTypesRequestDeadline(
        timeout: RequestDeadlineHandlerTests.timeout, tracker: tracker, abandonsAnswerOnClientClose: abandonsAnswerOnClientClose))
    if let next { try channel.pipeline.syncOperations.addHandler(next) }
    try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
    return channel
}

/// Open until the last nanosecond of the timeout, closed at it, and no reader told (none was reading a request).
func expectClosedWhenTheTimeoutRunsOut(_ channel: EmbeddedChannel, sourceLocation: SourceLocation = #_sourceLocation) {
    channel.embeddedEventLoop.advanceTime(by: RequestDeadlineHandlerTests.timeout - .nanoseconds(1))
    #expect(channel.isActive, sourceLocation: sourceLocation)
    channel.embeddedEventLoop.advanceTime(by: .nanoseconds(1))
    #expect(!channel.isActive, sourceLocation: sourceLocation)
    #expect(throws: Never.self, sourceLocation: sourceLocation) { try channel.throwIfErrorCaught() }
}

/// Closes the channel and drops what its loop still has scheduled (the grace timer), which the loop would trap on.
func release(_ channel: EmbeddedChannel) {
    _ = try? channel.finish(acceptAlreadyClosed: true)
    try? channel.embeddedEventLoop.syncShutdownGracefully()
}

/// Counts the half-closes that reach it: the embedded channel keeps no record of user events.
final class EventRecorder: ChannelInboundHandler {
    typealias InboundIn = HTTPRequestPart
    private(set) var inputClosed = 0

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event { inputClosed += 1 }
        context.fireUserInboundEventTriggered(event)
    }
}
