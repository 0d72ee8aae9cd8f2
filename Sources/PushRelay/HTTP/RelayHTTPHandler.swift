import ConnectionGuards
import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// Serves one HTTP/1.1 connection: reads each request whole (its body only as far as its route allows), hands it to
/// its route, and writes the answer the route gives, in order. It runs on the connection's event loop and keeps no
/// task for the connection: a request's work runs in a task of its own only while it is being decided, so a waiting
/// long-poll costs this handler and its waiter, not a suspended task.
///
/// It takes the HTTP/1 codec's parts and converts them to the HTTP types the routes read, and it does what would
/// otherwise take a handler each on every connection: keep-alive by the request's version, and back-pressure (a
/// client that sends without reading its answers is not read while they wait to be sent).
final class RelayHTTPHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private enum Reading {
        /// Between requests.
        case idle
        /// A head arrived; its body is kept up to the route's limit. Indirect: inline, these 80 bytes would be in every
        /// connection's handler for its whole life, a waiting long-poll's too.
        indirect case body(head: HTTPRequest, match: RelayRouter.Match, body: ByteBuffer, failure: BodyReadFailure?)
        /// The request was answered before all of it arrived (refused unread); the rest of it is dropped.
        case discarding
    }

    /// What is kept of requests pipelined behind the one being answered; a client sending more is closed, rather than
    /// held in memory while a long-poll waits.
    private static let maxQueuedParts = 64
    private static let maxQueuedBytes = 64 * 1024

    private let router: RelayRouter
    private let logger: Logger
    /// Kept for answers given later (`RelayResponder`), so that each of those need not keep it too.
    private var context: ChannelHandlerContext?
    private var reading = Reading.idle
    /// The request handed to its route and not answered yet, by its number on this connection.
    private var answering: UInt64?
    private var requests: UInt64 = 0
    private var queued: [HTTPRequestPart] = []
    private var queuedBytes = 0
    private var closeAfterAnswer = false
    private var inputClosed = false
    /// A read asked for while the connection could not take more answers, made once it can.
    private var readWhenWritable = false
    /// What the request being answered (`answering`) asked to be told if its client leaves first (a waiting long-poll).
    private var onClientGone: (@Sendable () -> Void)?
    /// Why a request pipelined behind the one being answered could not be read: it is answered 400 in its turn, and
    /// nothing after it is read.
    private var unreadable: (any Error)?

    init(router: RelayRouter, logger: Logger) {
        self.router = router
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard unreadable == nil else { return }
        let part: HTTPRequestPart
        switch unwrapInboundIn(data) {
        case .head(let head):
            do {
                var request = try HTTPRequest(head, secure: false, splitCookie: false)
                // The version is gone past here: an HTTP/1.0 client expects the connection closed after each answer
                // unless it asked to keep it (RFC 9112 §9.3).
                if !head.isKeepAlive { request.headerFields[.connection] = "close" }
                part = .head(request)
            } catch {
                return errorCaught(context: context, error: error)
            }
        case .body(let chunk): part = .body(chunk)
        case .end(let trailers): part = .end(trailers.map { HTTPFields($0, splitCookie: false) })
        }
        if case .discarding = reading {
            if case .end = part { reading = .idle }
            return
        }
        guard answering == nil else {
            queuedBytes += Self.size(of: part)
            guard queued.count < Self.maxQueuedParts, queuedBytes <= Self.maxQueuedBytes else { return context.close(promise: nil) }
            // A body chunk is a view into the read buffer, which it would keep whole: the queue keeps a copy.
            guard case .body(let chunk) = part else { return queued.append(part) }
            return queued.append(.body(ByteBuffer(bytes: chunk.readableBytesView)))
        }
        receive(part, context)
    }

    private func receive(_ part: HTTPRequestPart, _ context: ChannelHandlerContext) {
        switch (part, reading) {
        case (.head(let head), .idle):
            let match = router.match(head.method, path: head.path ?? "/")
            if case .route(let route, _) = match, let declared = head.headerFields[.contentLength].flatMap({ Int($0) }),
               declared > route.maxBody {
                // Refused before it is sent: the client need not send it, nor the relay read it.
                reading = .discarding
                closeAfterAnswer = true
                dispatch(head, match, .failure(.tooLarge(limit: route.maxBody)), context)
            } else {
                reading = .body(head: head, match: match, body: ByteBuffer(), failure: nil)
                // curl and others hold a larger body back until told to send it (RFC 9110 §10.1.1).
                if head.headerFields[.expect]?.lowercased() == "100-continue" {
                    context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(HTTPResponse(status: .continue)))), promise: nil)
                }
            }
        case (.body(var chunk), .body(let head, let match, var body, var failure)):
            // Out of `reading` while it grows, or each chunk would copy the whole body so far.
            reading = .idle
            if failure == nil, case .route(let route, _) = match {
                if body.readableBytes + chunk.readableBytes > route.maxBody {
                    failure = .tooLarge(limit: route.maxBody)
                    body = ByteBuffer()
                } else {
                    body.writeBuffer(&chunk)
                }
            }
            reading = .body(head: head, match: match, body: body, failure: failure)
        case (.end, .body(let head, let match, let body, let failure)):
            reading = .idle
            dispatch(head, match, failure.map { .failure($0) } ?? .success(body), context)
        default:
            // The decoder hands parts over in order; anything else is a broken connection.
            context.close(promise: nil)
        }
    }

    private func dispatch(
        _ head: HTTPRequest, _ match: RelayRouter.Match, _ body: Result<ByteBuffer, BodyReadFailure>,
        _ context: ChannelHandlerContext
    ) {
        requests += 1
        answering = requests
        if head.headerFields[.connection].map({ $0.lowercased().contains("close") }) == true { closeAfterAnswer = true }
        let responder = RelayResponder(handler: self, eventLoop: context.eventLoop, request: requests)
        switch match {
        case .notFound:
            answer(.text(.notFound, "no such endpoint: \(head.method) \(head.path ?? "")\n"), request: requests, context)
        case .methodNotAllowed(let allowed):
            var response = RelayResponse.text(.methodNotAllowed, "\(head.method) is not allowed here\n")
            response.headers[.allow] = allowed.map(\.rawValue).joined(separator: ", ")
            answer(response, request: requests, context)
        case .route(let route, _) where route.maxBody == 0 && (try? body.get()) == nil:
            // A route that reads no body would act on the request regardless: it is refused here instead.
            answer(.text(.contentTooLarge, "this endpoint takes no request body\n"), request: requests, context)
        case .route(let route, let parameters):
            let request = RelayRequest(
                head: head, body: body, parameters: parameters, logger: logger, responder: responder,
                clientAddress: context.channel.remoteAddress)
            switch route.immediate?(request) {
            case .answered(let response): return answer(response, request: requests, context)
            case .waiting: return
            case .needsHandler, nil: break
            }
            Task {
                do {
                    if let response = try await route.handler(request) { responder.send(response) }
                } catch {
                    responder.send(request.internalError(error))
                }
            }
        }
    }

    /// Writes the answer to request number `request`, if that is the one awaiting it, then reads on.
    fileprivate func answer(_ response: RelayResponse, request: UInt64, _ context: ChannelHandlerContext) {
        guard answering == request else { return }
        answering = nil
        onClientGone = nil
        guard context.channel.isActive else { return }
        let closes = closeAfterAnswer || (inputClosed && queued.isEmpty && unreadable == nil)
        var head = HTTPResponse(status: response.status, headerFields: response.headers)
        head.headerFields[.contentLength] = String(response.body.readableBytes)
        if closes { head.headerFields[.connection] = "close" }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(head))), promise: nil)
        if response.body.readableBytes > 0 { context.write(wrapOutboundOut(.body(.byteBuffer(response.body))), promise: nil) }
        guard closes else {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            return readQueued(context)
        }
        let closing = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in closing.value.close(promise: nil) }
    }

    /// Answers request number `request` later, from `RelayResponder`; nothing once the handler has left the connection.
    fileprivate func answer(_ response: RelayResponse, request: UInt64) {
        if let context { answer(response, request: request, context) }
    }

    /// Calls `callback` when the connection closes before request number `request` is answered; at once if it has.
    /// Told from `channelInactive` rather than by a callback on the channel's close future, which would be memory
    /// each connection holds for its whole life.
    fileprivate func whenClientGone(request: UInt64, _ callback: @escaping @Sendable () -> Void) {
        guard answering == request else { return }
        guard let context, context.channel.isActive else { return callback() }
        onClientGone = callback
        if inputClosed { context.close(promise: nil) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        let gone = onClientGone
        onClientGone = nil
        gone?()
        context.fireChannelInactive()
    }

    /// What a queued part holds in memory: a head its target and fields (each up to the decoder's 80 KiB).
    private static func size(of part: HTTPRequestPart) -> Int {
        func size(of fields: HTTPFields) -> Int { fields.reduce(0) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count } }
        return switch part {
        case .head(let head): (head.path ?? "").utf8.count + size(of: head.headerFields)
        case .body(let chunk): chunk.readableBytes
        case .end(let trailers): trailers.map(size(of:)) ?? 0
        }
    }

    private func readQueued(_ context: ChannelHandlerContext) {
        while answering == nil, !queued.isEmpty {
            let part = queued.removeFirst()
            queuedBytes -= Self.size(of: part)
            if case .discarding = reading {
                if case .end = part { reading = .idle }
                continue
            }
            receive(part, context)
        }
        if answering == nil, let error = unreadable {
            unreadable = nil
            return errorCaught(context: context, error: error)
        }
        if answering == nil, inputClosed, case .idle = reading { context.close(promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let malformed = error is HTTPParserError || error is HTTP1TypeConversionError
        if malformed, answering != nil || !queued.isEmpty {
            // The requests before it are answered first, in order, then it (`readQueued`).
            if unreadable == nil { unreadable = error }
            return
        }
        guard case .body(let head, let match, _, _) = reading, answering == nil else {
            // A malformed request head, or a broken socket: nothing more can be read from this connection.
            if answering == nil, case .idle = reading, malformed {
                requests += 1
                answering = requests
                closeAfterAnswer = true
                // A head the HTTP types refuse is followed by its body: no request of ours.
                reading = .discarding
                return answer(.text(.badRequest, "malformed HTTP request: \(error)\n"), request: requests, context)
            }
            closeAfterAnswer = true
            if answering == nil { context.close(promise: nil) }
            return
        }
        let reason = switch error {
        case let deadline as RequestDeadlineExceeded: "\(deadline.timeout.secondsText) s passed"
        case HTTPParserError.invalidEOFState: "the client closed its side"
        default: "\(error)"
        }
        reading = .discarding
        closeAfterAnswer = true
        dispatch(head, match, .failure(.incomplete(reason: reason)), context)
    }

    func read(context: ChannelHandlerContext) {
        if context.channel.isWritable { context.read() } else { readWhenWritable = true }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if !context.channel.isWritable {
            context.flush()
        } else if readWhenWritable {
            readWhenWritable = false
            context.read()
        }
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        let idle = if answering == nil, case .idle = reading, queued.isEmpty { true } else { false }
        switch event {
        case ChannelEvent.inputClosed:
            inputClosed = true
            // A client that shut its side still reads its answers (RFC 9112 §9.6), except a waiting long-poll's, which
            // ends now rather than wait for nobody, as nginx does.
            if idle || onClientGone != nil { context.close(promise: nil) }
        case is ChannelShouldQuiesceEvent:
            closeAfterAnswer = true
            if idle { context.close(promise: nil) }
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }
}

@available(*, unavailable)
extension RelayHTTPHandler: Sendable {}

/// Answers one request from any thread: the answer is written on the connection's event loop, and only if that
/// request is still the one awaiting an answer there.
struct RelayResponder: Sendable {
    private let eventLoop: any EventLoop
    private let handler: NIOLoopBound<RelayHTTPHandler>
    private let request: UInt64

    fileprivate init(handler: RelayHTTPHandler, eventLoop: any EventLoop, request: UInt64) {
        self.eventLoop = eventLoop
        self.handler = NIOLoopBound(handler, eventLoop: eventLoop)
        self.request = request
    }

    func send(_ response: RelayResponse) {
        onEventLoop { $0.answer(response, request: $1) }
    }

    /// Calls `callback` if the client leaves before this request is answered (its connection closes), or at once if
    /// it has left; never once the request is answered.
    func whenClientGone(_ callback: @escaping @Sendable () -> Void) {
        onEventLoop { $0.whenClientGone(request: $1, callback) }
    }

    private func onEventLoop(_ body: @escaping @Sendable (RelayHTTPHandler, UInt64) -> Void) {
        if eventLoop.inEventLoop {
            body(handler.value, request)
        } else {
            eventLoop.execute { [handler, request] in body(handler.value, request) }
        }
    }
}
