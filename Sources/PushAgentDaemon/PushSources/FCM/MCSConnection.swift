import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import PushAgentCore

/// One TLS connection to MCS, its bytes both ways (FCMPushSource reads and writes stanzas on it), direct or through
/// the HTTPS proxy's CONNECT tunnel. Whoever opens one must end it with `channel.executeThenClose`.
struct MCSConnection: Sendable {
    let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>

    /// - Parameter proxyReplyTimeout: how long a proxy may take to open the tunnel: its own connection onward may
    ///   hang where the port is dropped, and the 443 fallback waits on it.
    static func open(host: String, port: Int, tls context: NIOSSLContext, proxy: HTTPSProxy?,
                     proxyReplyTimeout: TimeAmount = .seconds(15), handshakeTimeout: TimeAmount = .seconds(15))
        async throws -> MCSConnection {
        // SNI and name checks take a host name; an address is checked against the certificate's IP entries.
        let serverName = host.contains(where: { $0.isLetter }) && !host.contains(":") ? host : nil
        let tunnel = proxy.map { HTTPConnectTunnelHandler(request: $0.connectRequest(to: host, port: port), timeout: proxyReplyTimeout) }
        let handshake = TLSHandshakeWatch()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(10))
            .connect(host: proxy?.host ?? host, port: proxy?.port ?? port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tunnel {
                        try channel.pipeline.syncOperations.addHandler(tunnel)
                    } else {
                        try channel.pipeline.syncOperations.addHandlers(
                            try NIOSSLClientHandler(context: context, serverHostname: serverName), handshake)
                    }
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        if let tunnel, let proxy {
            do {
                try await tunnel.established(on: channel.channel)
                let pipeline = channel.channel.pipeline
                try await channel.channel.eventLoop.submit {
                    let tls = try NIOSSLClientHandler(context: context, serverHostname: serverName)
                    try pipeline.syncOperations.addHandler(tls, position: .first)
                    try pipeline.syncOperations.addHandler(handshake, position: .after(tls))
                }.get()
            } catch {
                // Closed through the async channel, which must see its writer finished (NIO traps otherwise).
                try? await channel.executeThenClose { _, _ in }
                throw HTTPSProxyError("no tunnel to \(host):\(port) through the proxy \(proxy.host):\(proxy.port): \(error)")
            }
        }
        do {
            try await handshake.completed(on: channel.channel, within: handshakeTimeout)
        } catch {
            try? await channel.executeThenClose { _, _ in }
            throw error
        }
        return MCSConnection(channel: channel)
    }
}

/// An outcome a channel handler settles once, on its channel's event loop, and a task awaits from outside it; a
/// deadline settles it with an error if nothing else did first.
final class ChannelOutcome: @unchecked Sendable {
    /// Touched on the channel's event loop only.
    private var outcome: Result<Void, any Error>?
    private var promise: EventLoopPromise<Void>?
    private var deadline: Scheduled<Void>?

    func wait(on channel: any Channel) async throws {
        try await channel.eventLoop.flatSubmit { () -> EventLoopFuture<Void> in
            if let outcome = self.outcome { return channel.eventLoop.makeCompletedFuture(outcome) }
            let promise = channel.eventLoop.makePromise(of: Void.self)
            self.promise = promise
            return promise.futureResult
        }.get()
    }

    /// The first outcome counts; a close after a refusal changes nothing.
    func settle(_ result: Result<Void, any Error>) {
        guard outcome == nil else { return }
        outcome = result
        deadline?.cancel()
        promise?.completeWith(result)
        promise = nil
    }

    /// Settles it with `error` after `timeout`, then runs `expired`, unless it was settled by then.
    func expire(in timeout: TimeAmount, on loop: any EventLoop, with error: @escaping @Sendable () -> any Error,
                then expired: @escaping @Sendable () -> Void = {}) {
        guard outcome == nil else { return }
        deadline = loop.scheduleTask(in: timeout) { [self] in
            guard outcome == nil else { return }
            settle(.failure(error()))
            expired()
        }
    }
}

/// Says when TLS is up, or why it never came up: the handshake's own error (an untrusted certificate, another
/// host's name), which a first write racing the failure would hide behind "I/O on closed channel".
final class TLSHandshakeWatch: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    struct TimedOut: Error, CustomStringConvertible {
        let after: TimeAmount
        var description: String { "no TLS handshake within \(after.nanoseconds / 1_000_000_000) s (is it a TLS server?)" }
    }

    private let outcome = ChannelOutcome()

    func completed(on channel: any Channel, within timeout: TimeAmount) async throws {
        try await channel.eventLoop.submit { [outcome] in
            outcome.expire(in: timeout, on: channel.eventLoop, with: { TimedOut(after: timeout) })
        }.get()
        try await outcome.wait(on: channel)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted? = event as? TLSUserEvent { outcome.settle(.success(())) }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        outcome.settle(.failure(error))
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        outcome.settle(.failure(NIOSSLError.uncleanShutdown))
        context.fireChannelInactive()
    }
}

/// Asks an HTTP proxy for a tunnel before anything else crosses the connection, and steps aside once the proxy
/// opened it, so TLS starts on the tunnel.
final class HTTPConnectTunnelHandler: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer

    private let request: String
    private let timeout: TimeAmount
    private var reply = ByteBuffer()
    private var sent = false
    private let outcome = ChannelOutcome()

    init(request: String, timeout: TimeAmount) {
        self.request = request
        self.timeout = timeout
    }

    /// Waits for the proxy's answer: done when the tunnel is open, an error saying what the proxy said otherwise.
    func established(on channel: any Channel) async throws {
        try await outcome.wait(on: channel)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { sendRequest(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        sendRequest(context)
        context.fireChannelActive()
    }

    private func sendRequest(_ context: ChannelHandlerContext) {
        guard !sent else { return }
        sent = true
        context.writeAndFlush(NIOAny(ByteBuffer(string: request)), promise: nil)
        let (channel, timeout) = (context.channel, timeout)
        outcome.expire(in: timeout, on: context.eventLoop, with: {
            HTTPSProxyError("the proxy did not answer CONNECT within \(String(format: "%.1f", Double(timeout.nanoseconds) / 1e9)) s")
        }, then: { channel.close(promise: nil) })
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        reply.writeBuffer(&bytes)
        switch HTTPConnectReply.parse(reply.readableBytesView) {
        case nil:
            return
        case .established(let headLength)?:
            reply.moveReaderIndex(forwardBy: headLength)
            // A TLS server speaks only after the client's hello: nothing may follow the proxy's head.
            guard reply.readableBytes == 0 else { return fail(context, "the proxy sent bytes of its own after opening the tunnel") }
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            outcome.settle(.success(()))
        case .refused(let why)?:
            fail(context, why)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        outcome.settle(.failure(HTTPSProxyError("the proxy closed the connection before opening the tunnel")))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        outcome.settle(.failure(error))
        context.close(promise: nil)
    }

    private func fail(_ context: ChannelHandlerContext, _ why: String) {
        outcome.settle(.failure(HTTPSProxyError(why)))
        context.close(promise: nil)
    }
}
