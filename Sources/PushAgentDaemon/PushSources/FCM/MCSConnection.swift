import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import PushAgentCore

/// One TLS connection to MCS, its bytes both ways (FCMPushSource reads and writes stanzas on it), direct or through
/// the HTTPS proxy's CONNECT tunnel. Whoever opens one must end it with `channel.executeThenClose`.
struct MCSConnection: Sendable {
    let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>

    /// - Parameter proxyReplyTimeout: how long a proxy may take to open the tunnel: its own connection onward may
    ///   hang where the port is dropped, and the 443 fallback waits on it.
    static func open(host: String, port: Int, tls context: NIOSSLContext, proxy: HTTPSProxy?,
                     proxyReplyTimeout: TimeAmount = .seconds(15)) async throws -> MCSConnection {
        // SNI and name checks take a host name; an address is checked against the certificate's IP entries.
        let serverName = host.contains(where: { $0.isLetter }) && !host.contains(":") ? host : nil
        let tunnel = proxy.map { HTTPConnectTunnelHandler(request: $0.connectRequest(to: host, port: port), timeout: proxyReplyTimeout) }
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(10))
            .connect(host: proxy?.host ?? host, port: proxy?.port ?? port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tunnel {
                        try channel.pipeline.syncOperations.addHandler(tunnel)
                    } else {
                        try channel.pipeline.syncOperations.addHandler(
                            try NIOSSLClientHandler(context: context, serverHostname: serverName))
                    }
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        if let tunnel, let proxy {
            do {
                try await tunnel.established(on: channel.channel)
                let pipeline = channel.channel.pipeline
                try await channel.channel.eventLoop.submit {
                    try pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: context, serverHostname: serverName),
                                                           position: .first)
                }.get()
            } catch {
                // Closed through the async channel, which must see its writer finished (NIO traps otherwise).
                try? await channel.executeThenClose { _, _ in }
                throw HTTPSProxyError("no tunnel to \(host):\(port) through the proxy \(proxy.host):\(proxy.port): \(error)")
            }
        }
        return MCSConnection(channel: channel)
    }
}

/// Asks an HTTP proxy for a tunnel before anything else crosses the connection, and steps aside once the proxy
/// opened it, so TLS starts on the tunnel.
final class HTTPConnectTunnelHandler: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer

    private let request: String
    private let timeout: TimeAmount
    private var reply = ByteBuffer()
    private var deadline: Scheduled<Void>?
    private var sent = false
    private var promise: EventLoopPromise<Void>?
    private var outcome: Result<Void, any Error>?

    init(request: String, timeout: TimeAmount) {
        self.request = request
        self.timeout = timeout
    }

    /// Waits for the proxy's answer: done when the tunnel is open, an error saying what the proxy said otherwise.
    func established(on channel: any Channel) async throws {
        try await channel.eventLoop.flatSubmit { () -> EventLoopFuture<Void> in
            if let outcome = self.outcome { return channel.eventLoop.makeCompletedFuture(outcome) }
            let promise = channel.eventLoop.makePromise(of: Void.self)
            self.promise = promise
            return promise.futureResult
        }.get()
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
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: timeout) { [self] in
            complete(.failure(HTTPSProxyError("the proxy did not answer CONNECT within \(String(format: "%.1f", Double(timeout.nanoseconds) / 1e9)) s")))
            channel.close(promise: nil)
        }
    }

    /// The first outcome counts; a close after a refusal changes nothing.
    private func complete(_ result: Result<Void, any Error>) {
        guard outcome == nil else { return }
        outcome = result
        deadline?.cancel()
        promise?.completeWith(result)
        promise = nil
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
            complete(.success(()))
        case .refused(let why)?:
            fail(context, why)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        complete(.failure(HTTPSProxyError("the proxy closed the connection before opening the tunnel")))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        complete(.failure(error))
        context.close(promise: nil)
    }

    private func fail(_ context: ChannelHandlerContext, _ why: String) {
        complete(.failure(HTTPSProxyError(why)))
        context.close(promise: nil)
    }
}
