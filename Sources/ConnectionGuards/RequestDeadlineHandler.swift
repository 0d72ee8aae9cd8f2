import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Thrown into the body stream of a request whose body stopped arriving before its deadline, so the handler
/// reading it can answer (400) instead of waiting for a body that will never come.
public struct RequestDeadlineExceeded: Error, CustomStringConvertible {
    public let timeout: TimeAmount

    public init(timeout: TimeAmount) { self.timeout = timeout }

    public var description: String { "the request did not arrive in full within \(timeout.secondsText) s" }
}

/// Gives every request a deadline: once a connection is ready for a request (it opened, or its previous answer
/// ended), the whole request, head and body, must arrive within `timeout`. That one rule closes idle keep-alive
/// connections, slowloris-style trickled headers and stalled bodies alike, which a per-read idle timer does
/// not: a byte every few seconds would keep it alive forever. Answering takes as long as it takes (long-polls,
/// event streams): the clock stops once a request is in and restarts when its answer ends.
///
/// A connection that has not sent a complete request head by then is closed. One whose head arrived but whose
/// body did not gets `RequestDeadlineExceeded` in its body stream (the handler answers), and is closed
/// `answerGrace` later whatever happens.
///
/// With `abandonsAnswerOnClientClose`, a client that closes its side while its answer is pending (a long-poll whose
/// client went away) gets its connection closed at once, as nginx does, so the handler waiting on it can end and
/// free what it holds instead of waiting out its deadline for nobody.
///
/// Sits after the HTTP/1 codec, on its parts (`HTTPServerRequestPart`, as the relay reads them) or on the HTTP types
/// ones after a conversion (`HTTPRequestPart`, as Hummingbird's pipeline carries them).
public final class RequestDeadlineHandler<RequestPart: HTTPMessagePart, ResponsePart: HTTPMessagePart>: ChannelDuplexHandler,
    RemovableChannelHandler, NIOScheduledCallbackHandler {
    public typealias InboundIn = RequestPart
    public typealias InboundOut = RequestPart
    public typealias OutboundIn = ResponsePart
    public typealias OutboundOut = ResponsePart

    private static var answerGrace: TimeAmount { .seconds(1) }

    private let timeout: TimeAmount
    private let tracker: (any ConnectionTracker)?
    /// Requests whose head arrived and whose answer has not ended.
    private var unanswered = 0
    /// A head arrived and its end has not.
    private var readingRequest = false
    /// When the request awaited must be in by; nil while none is awaited.
    private var due: NIODeadline?
    /// The connection's one timer, left running across requests: set for `due` when a wait starts with none running,
    /// and when it fires before a later `due`, set again for that. A timer per wait, set at every answer's end and
    /// cancelled at the next head, cost the relay a twenty-fifth of its CPU a delivered message. A waiting long-poll
    /// keeps the timer set until it first fires (at most `timeout` after the wait before it began), so it is a
    /// callback (no promise): 10,000 waiting polls hold 2 MiB more, not 4.
    private var timer: NIOScheduledCallback?
    /// What the timer acts on; nil once the connection ended, so a timer that outlives it holds nothing.
    private var context: ChannelHandlerContext?
    private var admitted = false
    /// The tracker was told the connection opened, and not yet that it closed.
    private var tracked = false
    private let abandonsAnswerOnClientClose: Bool

    public init(timeout: TimeAmount, tracker: (any ConnectionTracker)? = nil, abandonsAnswerOnClientClose: Bool = false) {
        self.timeout = timeout
        self.tracker = tracker
        self.abandonsAnswerOnClientClose = abandonsAnswerOnClientClose
    }

    /// Waiting for (the rest of) a request, the only time the clock runs.
    private var awaitingRequest: Bool { unanswered == 0 || readingRequest }

    public func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    public func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        // Taken out of a connection that stays open: its close is left to the channel to tell.
        if tracked, context.channel.isActive, let tracker {
            tracked = false
            let channel = context.channel
            channel.closeFuture.whenComplete { _ in tracker.closed(channel) }
        }
        end(context)
    }

    public func channelInactive(context: ChannelHandlerContext) {
        end(context)
        context.fireChannelInactive()
    }

    /// The connection closed (or this handler left it): no clock, and the tracker is told, once. Told from here
    /// rather than from a callback on the channel's close future: that callback would be memory each open
    /// connection holds for its whole life, and a waiting long-poll is an open connection.
    private func end(_ context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        due = nil
        self.context = nil
        if tracked {
            tracked = false
            tracker?.closed(context.channel)
        }
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data).messagePart {
        case .head:
            unanswered += 1
            readingRequest = true
        case .body:
            break
        case .end:
            readingRequest = false
        }
        update(context)
        context.fireChannelRead(data)
    }

    public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if abandonsAnswerOnClientClose, case ChannelEvent.inputClosed = event, unanswered > 0, !readingRequest {
            context.close(promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data).messagePart {
            unanswered = max(0, unanswered - 1)
            update(context)
        }
        context.write(data, promise: promise)
    }

    private func start(_ context: ChannelHandlerContext) {
        guard !admitted else { return }
        admitted = true
        if let tracker {
            let channel = context.channel
            guard tracker.opened(channel) else {
                context.close(promise: nil)
                return
            }
            tracked = true
        }
        update(context)
    }

    /// Runs the clock exactly while a request is awaited, and tells the tracker when that changes.
    private func update(_ context: ChannelHandlerContext) {
        let waiting = awaitingRequest && context.channel.isActive
        if waiting, due == nil {
            let due = context.eventLoop.now + timeout
            self.due = due
            if timer == nil { setTimer(context, for: due) }
            tracker?.waitingChanged(context.channel, waiting: true)
        } else if !waiting, due != nil {
            due = nil
            tracker?.waitingChanged(context.channel, waiting: false)
        }
    }

    private func setTimer(_ context: ChannelHandlerContext, for deadline: NIODeadline) {
        self.context = context
        timer = try? context.eventLoop.assumeIsolated().scheduleCallback(at: deadline, handler: self)
    }

    public func handleScheduledCallback(eventLoop: some EventLoop) {
        timer = nil
        guard let context, let due else { return }
        if due > eventLoop.now {
            setTimer(context, for: due)
        } else {
            expire(context)
        }
    }

    private func expire(_ context: ChannelHandlerContext) {
        due = nil
        guard readingRequest else {
            context.close(promise: nil)
            return
        }
        context.fireErrorCaught(RequestDeadlineExceeded(timeout: timeout))
        context.eventLoop.assumeIsolated().scheduleTask(in: Self.answerGrace) { context.close(promise: nil) }
    }
}

@available(*, unavailable)
extension RequestDeadlineHandler: Sendable {}

/// Where in its message an HTTP part is: all `RequestDeadlineHandler` needs of either codec's parts.
public enum HTTPMessagePartKind { case head, body, end }

public protocol HTTPMessagePart {
    var messagePart: HTTPMessagePartKind { get }
}

extension HTTPPart: HTTPMessagePart {
    public var messagePart: HTTPMessagePartKind {
        switch self {
        case .head: .head
        case .body: .body
        case .end: .end
        }
    }
}

extension HTTPRequestPart: HTTPMessagePart {
    public var messagePart: HTTPMessagePartKind {
        switch self {
        case .head: .head
        case .body: .body
        case .end: .end
        }
    }
}

extension HTTPResponsePart: HTTPMessagePart {
    public var messagePart: HTTPMessagePartKind {
        switch self {
        case .head: .head
        case .body: .body
        case .end: .end
        }
    }
}

/// Told about each connection's life by its `RequestDeadlineHandler`, on the connection's event loop; a server
/// uses it to bound how many connections it keeps and which to drop first.
public protocol ConnectionTracker: Sendable {
    /// A connection is ready; returning false closes it at once.
    func opened(_ channel: any Channel) -> Bool
    /// The connection started (true) or stopped (false) awaiting a request: the only time it may be idle or slow.
    func waitingChanged(_ channel: any Channel, waiting: Bool)
    func closed(_ channel: any Channel)
}

extension TimeAmount {
    /// "10" for 10 s, "0.5" for 500 ms: for messages that name a timeout.
    public var secondsText: String {
        nanoseconds % 1_000_000_000 == 0 ? "\(nanoseconds / 1_000_000_000)" : "\(Double(nanoseconds) / 1_000_000_000)"
    }
}
