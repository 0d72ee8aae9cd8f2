import NIOCore

/// Sizes each connection's read buffer for what the relay reads, requests of a few hundred bytes, instead of NIO's
/// 2 KiB start: every connection keeps its buffer for its whole life, and ten thousand waiting long-polls are ten
/// thousand connections. The buffer still grows for a read that fills it.
final class SmallReadBuffers: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    static let allocator = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65536)

    func handlerAdded(context: ChannelHandlerContext) {
        _ = try? context.channel.syncOptions?.setOption(ChannelOptions.recvAllocator, value: Self.allocator)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
