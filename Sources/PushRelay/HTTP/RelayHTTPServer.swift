import ConnectionGuards
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// The request deadline on the HTTP/1 codec's parts, as the relay's pipeline carries them.
typealias RelayRequestDeadline = RequestDeadlineHandler<HTTPServerRequestPart, HTTPServerResponsePart>

/// The relay's HTTP/1.1 server: NIO's codec, the request deadline, and `RelayHTTPHandler` on each connection, on
/// NIO's shared event loops. On graceful shutdown it stops accepting, closes idle connections, and returns once the
/// connections still answering have answered.
struct RelayHTTPServer: Service {
    let listen: ListenAddress
    let router: RelayRouter
    let slots: ConnectionSlots
    let requestTimeout: TimeAmount
    let logger: Logger
    let onListening: @Sendable (ListenAddress) async -> Void

    func run() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let (router, slots, requestTimeout, logger) = (router, slots, requestTimeout, logger)
        let server = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            // Requests are a few hundred bytes, and each connection keeps its buffer for life: ten thousand waiting
            // long-polls are ten thousand connections. A buffer still grows for a read that fills it.
            .childChannelOption(.recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 256, maximum: 65536))
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    // Idle, slow and stalled requests are cut off by the deadline; a waiting long-poll is not a request
                    // in progress. A client that shuts its side is `RelayHTTPHandler`'s: it still gets its answer,
                    // unless it is a waiting long-poll's.
                    try Self.addHTTPHandlers(
                        to: channel.pipeline.syncOperations, router: router, logger: logger,
                        deadline: RelayRequestDeadline(timeout: requestTimeout, tracker: slots))
                }
            }
            .bind(host: listen.host, port: listen.port)
            .flatMapErrorThrowing { [listen] in
                throw ListenError(host: listen.host, port: listen.port, program: "pushrelay",
                                  change: "--listen HOST:PORT or `listen` in pushrelay.toml", $0)
            }.get()
        await onListening(ListenAddress(host: listen.host, port: server.localAddress?.port ?? listen.port))

        try? await gracefulShutdown()
        try? await server.close()
        // A connection accepted before the listener closed becomes active on its own loop: a turn of each loop lets
        // every one reach `ConnectionSlots` before it counts them.
        for loop in group.makeIterator() { try? await loop.submit {}.get() }
        await slots.quiesce()
    }
}

extension RelayHTTPServer {
    /// HTTP/1.1 from the bytes up to the relay's routes: what every connection runs, and the handlers' tests too.
    /// Four handlers: each one a connection holds costs it memory for as long as it is open, and a waiting
    /// long-poll is an open connection (keep-alive, the HTTP types conversion and back-pressure are
    /// `RelayHTTPHandler`'s own).
    static func addHTTPHandlers(to pipeline: ChannelPipeline.SynchronousOperations, router: RelayRouter, logger: Logger,
                                deadline: RelayRequestDeadline?) throws {
        // Pipelined requests and malformed ones are the handler's to answer; the headers it writes are its own.
        try pipeline.configureHTTPServerPipeline(
            withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false,
            withEncoderConfiguration: .init(), withDecoderLimitConfiguration: .init())
        if let deadline { try pipeline.addHandler(deadline) }
        try pipeline.addHandler(RelayHTTPHandler(router: router, logger: logger))
    }
}

extension RelayHTTPServer: CustomStringConvertible {
    /// How service-lifecycle names it in its logs.
    var description: String { "RelayHTTPServer(\(listen))" }
}
