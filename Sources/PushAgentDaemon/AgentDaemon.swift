import ConnectionGuards
import Foundation
import Logging
import PushAgentStore
import ServiceLifecycle
import SystemdSupport

/// pushagentd: opens the state, wires the agent's parts (`AgentServices`) to the control socket, systemd and
/// SIGHUP, and runs them until SIGTERM.
public enum AgentDaemon {
    /// `reload` reads the configuration again from the same sources, on SIGHUP.
    public static func run(config: AgentConfig, reload: @escaping @Sendable () throws -> AgentConfig) async throws {
        let logger = Logger(label: "pushagentd")
        if let raised = OpenFileLimit.raiseSoftToHard() {
            logger.info("open-file limit raised from \(raised.before.soft) to \(raised.after.soft) (the hard limit)")
        }
        let liveConfig = LiveConfig(config)
        let listener = try ControlListener.resolve(configuredPath: config.socketPath)
        try prepareDirectories(config, listener: listener)
        let lockPath = config.stateDirectory + "/pushagentd.lock"
        let stateLock = try InstanceLock(
            path: lockPath,
            whenHeld: "another pushagentd is already running with \(lockPath) (stop it first, or give this one its own --state-dir and --socket)")
        let sealingKey = try SealingKey.load(
            credentialsDirectory: ProcessInfo.processInfo.environment["CREDENTIALS_DIRECTORY"],
            stateDirectory: config.stateDirectory)
        let store = try AgentStore(directory: config.stateDirectory, sealingKey: sealingKey)
        logger.info("account secrets sealed by: \(sealingKey.source.rawValue)")
        let agent = AgentServices(store: store, config: liveConfig, logger: logger)
        let watchdog = SystemdWatchdog(heartbeat: agent.heartbeat, relayState: agent.relayState, store: store,
                                       config: liveConfig)
        let server = ControlServer(listener: listener, responder: agent.responder, socketMode: config.socketMode,
                                   limits: ControlConnectionLimits(config), logger: logger) {
            logger.notice("control socket listening on \(listener.path)\(listener.isActivated ? " (socket-activated)" : "")")
            SystemdNotifier.ready(status: await watchdog.statusLine())
        }
        let reloader = ConfigReloader(config: liveConfig, load: reload, statusLine: { await watchdog.statusLine() },
                                      logger: logger)
        try await agent.resumeUnfinished()
        let group = ServiceGroup(configuration: .init(
            services: [server, watchdog, reloader] + agent.backgroundServices,
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
        SystemdNotifier.stopping()
        withExtendedLifetime(stateLock) {}
        logger.notice("stopped")
    }

    private static func prepareDirectories(_ config: AgentConfig, listener: ControlListener) throws {
        let socketDirectory = (config.socketPath as NSString).deletingLastPathComponent
        if case .bound = listener, !FileManager.default.fileExists(atPath: socketDirectory) {
            try FileManager.default.createDirectory(atPath: socketDirectory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: config.socketMode.directoryMode])
        }
        try FileManager.default.createDirectory(atPath: config.stateDirectory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
    }
}

/// On graceful shutdown: end event streams (so they do not hold the server) and let answers in flight finish.
struct ShutdownHooks: Service {
    let events: EventBus
    let inFlight: InFlightAnswers
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        await events.finishAll()
        if inFlight.count > 0 {
            logger.notice("waiting for \(inFlight.count) answer(s) in flight")
            await inFlight.drain(timeout: .seconds(10))
        }
    }
}
