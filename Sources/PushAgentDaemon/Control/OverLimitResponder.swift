import ControlWire
import Hummingbird
import NIOCore
import NIOHTTPTypes

/// The whole pipeline of a connection refused by `PeerConnectionLimiter`: its first request is answered
/// `503 unavailable` with the reason, without reaching the router, and the connection is closed. Answering
/// rather than dropping it tells the user (pushctl prints the message) what happened instead of a bare
/// "connection reset".
final class OverLimitResponder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    private let error: ControlError
    private var answered = false

    init(uid: UInt32, limit: Int) {
        error = ControlError(.unavailable, "uid \(uid) already has \(limit) connections open to pushagentd, the most one user may have (control_connections_per_uid): close some (is a program leaking connections?) and try again")
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head = unwrapInboundIn(data), !answered else { return }
        answered = true
        let body = JSONResponse.errorBody(error)
        let head = HTTPResponse(status: ControlFailure.status(of: error.code), headerFields: [
            .contentType: "application/json", .contentLength: "\(body.readableBytes)", .connection: "close",
        ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}

@available(*, unavailable)
extension OverLimitResponder: Sendable {}
