import Hummingbird
import Logging
import ServiceLifecycle

/// A real HTTP server in the test process, so clients are tested against actual sockets.
public enum InProcessServer {
    /// Runs `router` at `address` while `body` runs, passing it the bound port (0 for a Unix socket); returns once the
    /// server is gone, so its port is really closed, also when `body` throws.
    public static func with<T: Sendable>(_ router: Router<BasicRequestContext>, address: BindAddress, label: String,
                                         _ body: (Int) async throws -> T) async throws -> T {
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: label)
        logger.logLevel = .critical  // a handler cut off at the end logs an error
        let app = Application(
            router: router,
            configuration: .init(address: address),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let server = Task { try await group.run() }
        // A graceful shutdown first: cancelling a NIO server while it holds an accepted connection not yet handed
        // to Hummingbird traps ("Deinited NIOAsyncWriter without calling finish()", apple/swift-nio#3481). A
        // handler still sleeping after a while is cut off then, the listening socket being closed already.
        func stop() async {
            await group.triggerGracefulShutdown()
            let stopped = Task {
                try? await Task.sleep(for: .seconds(2))
                server.cancel()
            }
            _ = await server.result
            stopped.cancel()
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
