import ConnectionGuards
import Logging
import ServiceLifecycle
import SystemdSupport

/// Runs the relay application in its own `ServiceGroup`: what the `pushrelay` executable runs, and what
/// tests start in-process.
public final class RelayServer: Sendable {
    private let group: ServiceGroup
    private let ownsProcess: Bool
    /// A pushrelay process holds its SQLite state alone: a woken poll is answered from what this process committed
    /// (`RecentSends`), which another writer's sends would make wrong.
    private let stateLock: InstanceLock?

    /// Opens the store (and migrates it); nothing listens until `run()`.
    /// - Parameter ownsProcess: handle SIGTERM/SIGINT as graceful shutdown and report readiness to systemd
    ///   (`Type=notify`); off for a relay embedded in another process, such as a test.
    public init(
        config: RelayConfig,
        logger: Logger = Logger(label: "pushrelay"),
        ownsProcess: Bool = false,
        onListening: @escaping @Sendable (ListenAddress) async -> Void = { _ in }
    ) async throws {
        // Each connection is a file descriptor; take what the hard limit allows before sizing the connection bound.
        if ownsProcess, let raised = OpenFileLimit.raiseSoftToHard() {
            logger.info("open-file limit raised from \(raised.before.soft) to \(raised.after.soft) (the hard limit)")
        }
        let services = try await makeRelayServices(config: config, logger: logger) { address in
            if ownsProcess { SystemdNotifier.ready(status: "listening on \(address)") }
            await onListening(address)
        }
        self.ownsProcess = ownsProcess
        if ownsProcess, case .sqlite(let directory) = config.database {
            let path = directory + "/relay.lock"
            stateLock = try InstanceLock(
                path: path,
                whenHeld: "another pushrelay is already running on \(directory) (\(path) is locked): stop it first, or give this one its own --state-dir")
        } else {
            stateLock = nil
        }
        group = ServiceGroup(configuration: .init(
            services: services, gracefulShutdownSignals: ownsProcess ? [.sigterm, .sigint] : [], logger: logger))
    }

    /// Returns once the relay has shut down, gracefully (signal or `shutdown()`) or by an error.
    public func run() async throws {
        defer { if ownsProcess { SystemdNotifier.stopping() } }
        try await group.run()
    }

    /// Stops accepting connections, ends waiting long-polls with an empty answer, and lets `run()` return.
    public func shutdown() async {
        await group.triggerGracefulShutdown()
    }

    /// Sends logs to the journal under systemd and to stderr otherwise; call once, before creating a server.
    public static func bootstrapLogging(level: Logger.Level = .info) {
        LoggingSetup.bootstrap(label: "pushrelay", level: level)
    }
}
