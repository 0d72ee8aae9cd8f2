import NIOCore
import NIOHTTP1

/// An HTTP/1.0 client expects the connection closed after each answer unless it asked to keep it (RFC 9112 §9.3).
/// The request types past this handler no longer carry the version, so such a request is marked
/// `Connection: close` here, which `RelayHTTPHandler` honours.
final class KeepAliveHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data), !head.isKeepAlive else { return context.fireChannelRead(data) }
        head.headers.replaceOrAdd(name: "connection", value: "close")
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}

@available(*, unavailable)
extension KeepAliveHandler: Sendable {}
