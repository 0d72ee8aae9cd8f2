import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import PushAgentCore

/// One TLS connection to MCS: stanzas in as they are read, stanzas out through `send`. A connection that receives
/// nothing (not even the answer to our ping) for `silenceLimit` is closed, which ends `messages`.
struct MCSConnection: Sendable {
    let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>

    static func open(host: String, port: Int, caFile: String?, silenceLimit: TimeAmount) async throws -> MCSConnection {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile { tls.additionalTrustRoots = [.file(caFile)] }
        let context = try NIOSSLContext(configuration: tls)
        // SNI and name checks take a host name; an address is checked against the certificate's IP entries.
        let serverName = host.contains(where: { $0.isLetter }) && !host.contains(":") ? host : nil
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(10))
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([
                        try NIOSSLClientHandler(context: context, serverHostname: serverName),
                        IdleStateHandler(readTimeout: silenceLimit),
                        CloseWhenSilent(),
                    ])
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return MCSConnection(channel: channel)
    }
}

/// Closes the connection when IdleStateHandler reports that nothing was read for its timeout: a dead peer, a
/// NAT mapping gone, a stalled stream.
private final class CloseWhenSilent: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }
}
