import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import PushAgentCore

/// One TLS connection to MCS, its bytes both ways (FCMPushSource reads and writes stanzas on it).
struct MCSConnection: Sendable {
    let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>

    static func open(host: String, port: Int, caFile: String?) async throws -> MCSConnection {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile { tls.additionalTrustRoots = [.file(caFile)] }
        let context = try NIOSSLContext(configuration: tls)
        // SNI and name checks take a host name; an address is checked against the certificate's IP entries.
        let serverName = host.contains(where: { $0.isLetter }) && !host.contains(":") ? host : nil
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(10))
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        try NIOSSLClientHandler(context: context, serverHostname: serverName))
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return MCSConnection(channel: channel)
    }
}
