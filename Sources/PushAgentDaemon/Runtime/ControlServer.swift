import ConnectionGuards
import ControlWire
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOExtras
import NIOHTTP1
import NIOHTTPTypes
import NIOPosix
import ServiceLifecycle
import SystemdSupport

/// Where the control API listens: the socket systemd passed (socket activation, the `.socket` unit owns the
/// path), or a path the daemon binds itself.
enum ControlListener: Sendable {
    case activated(fd: Int32, path: String)
    case bound(path: String)

    /// Socket activation when systemd passed a socket, else the configured path.
    static func resolve(configuredPath: String) throws(SocketActivation.Failure) -> ControlListener {
        guard let fd = try SocketActivation.listeningUnixSocket() else { return .bound(path: configuredPath) }
        return .activated(fd: fd, path: SocketActivation.path(of: fd) ?? "fd \(fd)")
    }

    var isActivated: Bool {
        if case .activated = self { true } else { false }
    }

    var path: String {
        switch self {
        case .activated(_, let path), .bound(let path): path
        }
    }
}

/// What a control connection may hold: `AgentConfig`'s `control_request_timeout_seconds` and
/// `control_connections_per_uid`.
struct ControlConnectionLimits: Sendable {
    /// How long a connection has to deliver a complete request (see `RequestDeadlineHandler`).
    var requestTimeout: TimeAmount
    var connectionsPerUID: Int

    /// A refused connection only has to send its request head to be told why; it gets no longer to do so.
    static let refusedRequestTimeout = TimeAmount.seconds(1)

    init(requestTimeout: TimeAmount, connectionsPerUID: Int) {
        self.requestTimeout = requestTimeout
        self.connectionsPerUID = connectionsPerUID
    }

    init(_ config: AgentConfig) {
        self.init(requestTimeout: .nanoseconds(Int64(config.controlRequestTimeoutSeconds * 1_000_000_000)),
                  connectionsPerUID: config.controlConnectionsPerUID)
    }
}

/// Serves the control API's router over HTTP/1 on the control socket. Hummingbird's `Application` can only bind
/// a path, so this runs its HTTP/1 channel on a NIO server channel made either from the activated socket or
/// from a bound path: one code path for routes and SO_PEERCRED checks either way.
struct ControlServer: Service {
    let listener: ControlListener
    let responder: RouterResponder<PeerContext>
    let socketMode: AgentConfig.SocketMode
    let limits: ControlConnectionLimits
    let logger: Logger
    let onListening: @Sendable () async -> Void

    func run() async throws {
        let http = HTTP1Channel(responder: respond)
        let limiter = PeerConnectionLimiter(perUID: limits.connectionsPerUID, logger: logger)
        let group = MultiThreadedEventLoopGroup.singleton
        let quiescing = ServerQuiescingHelper(group: group)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(quiescing.makeServerChannelHandler(channel: channel))
                }
            }
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
        let logger = logger
        let limits = limits
        let setup: @Sendable (any Channel) -> EventLoopFuture<HTTP1Channel.Value> = { channel in
            Self.peerUID(of: channel).flatMap { uid in
                Self.http1Channel(for: channel, uid: uid, limits: limits, limiter: limiter, responder: http.responder)
                    .setup(channel: channel, logger: logger)
            }
        }
        let server: NIOAsyncChannel<HTTP1Channel.Value, Never>
        switch listener {
        case .activated(let fd, _):
            server = try await bootstrap.bind(fd, childChannelInitializer: setup)
        case .bound(let path):
            // bind(2) creates the socket 0777 & ~umask: set the mode there, with no window where it is wider.
            let previousMask = umask(socketMode.umask)
            defer { umask(previousMask) }
            server = try await bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true,
                                              childChannelInitializer: setup)
        }
        await onListening()
        // Graceful shutdown stops accepting, lets each connection finish its request, then returns.
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { connections in
                try await server.executeThenClose { inbound in
                    for try await connection in inbound {
                        connections.addTask { await http.handle(value: connection, logger: logger) }
                    }
                }
            }
        } onGracefulShutdown: {
            quiescing.initiateShutdown(promise: nil)
        }
        // An activated socket belongs to the .socket unit, which keeps listening for the next start.
        if case .bound(let path) = listener { unlink(path) }
    }

    /// An admitted connection gets the router under a request deadline; one over its uid's bound gets only the
    /// 503 that says so.
    private static func http1Channel(for channel: any Channel, uid: UInt32?, limits: ControlConnectionLimits,
                                     limiter: PeerConnectionLimiter,
                                     responder: @escaping HTTPChannelHandler.Responder) -> HTTP1Channel {
        // Without SO_PEERCRED (never on a Unix socket) the connection shares one anonymous bound.
        let uid = uid ?? UInt32.max
        let admitted = limiter.admit(channel, uid: uid)
        return HTTP1Channel(responder: responder, configuration: .init(additionalChannelHandlers: admitted
            ? [RequestDeadlineHandler<HTTPRequestPart, HTTPResponsePart>(timeout: limits.requestTimeout)]
            : [RequestDeadlineHandler<HTTPRequestPart, HTTPResponsePart>(timeout: ControlConnectionLimits.refusedRequestTimeout),
               OverLimitResponder(uid: uid, limit: limits.connectionsPerUID)]))
    }

    private static func peerUID(of channel: any Channel) -> EventLoopFuture<UInt32?> {
        guard let provider = channel as? any SocketOptionProvider else { return channel.eventLoop.makeSucceededFuture(nil) }
        return provider.unsafeGetSocketOption(level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
            .map { (credentials: PeerCredentials) in Optional(credentials.uid) }
            .recover { _ in nil }
    }

    private func respond(_ request: Request, _ writer: consuming ResponseWriter, _ channel: any Channel) async throws {
        let context = PeerContext(source: .init(channel: channel, logger: logger))
        let response: Response
        do {
            response = try await responder.respond(to: request, context: context)
        } catch let error as HTTPParserError {
            throw error // the channel answers 400 and closes the connection
        } catch {
            response = JSONResponse.error(ControlFailure.controlError(from: error))
        }
        try await writer.write(response: response.head, body: response.body)
    }
}
