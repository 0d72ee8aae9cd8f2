import Hummingbird
import Logging

/// A real HTTP server in the test process, so clients are tested against actual sockets.
public enum InProcessServer {
    /// Runs `router` at `address` while `body` runs, passing it the bound port (0 for a Unix socket); returns once the
    /// server is gone, so its port is really closed, also when `body` throws.
    public static func with<T: Sendable>(_ router: Router<BasicRequestContext>, address: BindAddress, label: String,
                                         _ body: (Int) async throws -> T) async throws -> T {
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: label)
        logger.logLevel = .critical  // cancelling the server task at the end logs an error
        let app = Application(
            router: router,
            configuration: .init(address: address),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: logger)
        let server = Task { try await app.run() }
        func stop() async {
            server.cancel()
            _ = await server.result
        }
        var iterator = ports.makeAsyncIterator()
        do {
            guard let port = await iterator.next() else { throw CancellationError() }
            let result = try await body(port)
            await stop()
            return result
        } catch {
            await stop()
            throw error
        }
    }
}
