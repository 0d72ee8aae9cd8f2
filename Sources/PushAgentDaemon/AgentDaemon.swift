import ConnectionGuards
import ControlWire
import Foundation
import Logging
import PushAgentStore
import ServiceLifecycle
import SystemdSupport

/// pushagentd: wires the store, the providers, the push sources and the control socket, and runs them until SIGTERM.
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
        let stateLock = try InstanceLock(path: config.stateDirectory + "/pushagentd.lock")
        let sealingKey = try SealingKey.load(
            credentialsDirectory: ProcessInfo.processInfo.environment["CREDENTIALS_DIRECTORY"],
            stateDirectory: config.stateDirectory)
        let store = try AgentStore(directory: config.stateDirectory, sealingKey: sealingKey)
        logger.info("account secrets sealed by: \(sealingKey.source.rawValue)")
        let events = EventBus()
        let relayState = RelayStateBox(url: config.relayURL ?? "")
        let heartbeat = Heartbeat()
        let inFlight = InFlightAnswers()
        let modules = ProviderModules(ProviderContext(store: store, http: ProviderHTTP(http: .shared), events: events,
                                                      config: liveConfig, logger: logger))
        let muting = AccountMuting(store: store, events: events, logger: logger)
        let approvals = ApprovalService(store: store, modules: modules, events: events, inFlight: inFlight,
                                        config: liveConfig, muting: muting, logger: logger)
        let ingest = PushIngest(store: store, modules: modules, events: events, logger: logger, fatigue: PushFatigueDefence(
            store: store, approvals: approvals, config: liveConfig, events: events, logger: logger))
        let tokenUpdater = PushTokenUpdater(store: store, modules: modules, events: events, deviceName: config.deviceName,
                                            config: liveConfig, logger: logger)
        let relay = RelayPushSource(client: RelayDeviceClient(baseURL: config.relayURL ?? "", http: .shared),
                                    config: liveConfig, store: store, relayState: relayState, events: events,
                                    heartbeat: heartbeat, tokenUpdater: tokenUpdater, logger: logger)
        let pushSources = PushSources(all: [relay] + modules.pushSources)
        let writers = Writers(policy: OperatorPolicy(config: liveConfig, daemonUid: getuid()), store: store)
        let router = ControlRouter(collections: [
            StatusRoutes(store: store, events: events, relayState: relayState, pushSources: pushSources, startedAt: Date()),
            AccountRoutes(store: store, enrollment: EnrollmentService(store: store, modules: modules, events: events,
                                                                      deviceName: config.deviceName, logger: logger),
                          muting: muting, modules: modules, config: liveConfig, writers: writers),
            ApprovalRoutes(store: store, approvals: approvals, writers: writers),
            RequestRoutes(store: store, events: events),
            RefreshRoutes(pushSources: pushSources, ingest: ingest),
            StepUpRoutes(stepUps: StepUpService(store: store, events: events, logger: logger)),
            BackupRoutes(backups: BackupService(store: store, modules: modules, events: events, tokenUpdater: tokenUpdater,
                                                logger: logger), writers: writers),
        ], modules: modules, writers: writers).build(logger: logger)

        let watchdog = SystemdWatchdog(heartbeat: heartbeat, relayState: relayState, store: store, config: liveConfig)
        let server = ControlServer(listener: listener, responder: router.buildResponder(), socketMode: config.socketMode,
                                   limits: ControlConnectionLimits(config), logger: logger) {
            logger.notice("control socket listening on \(listener.path)\(listener.isActivated ? " (socket-activated)" : "")")
            SystemdNotifier.ready(status: await watchdog.statusLine())
        }
        let reloader = ConfigReloader(config: liveConfig, load: reload, statusLine: { await watchdog.statusLine() },
                                      logger: logger)
        try await approvals.resumeUnfinished()
        for module in modules.all { try await module.resumeUnfinished() }
        let services: [any Service] = [server] + pushSources.all.map { PushSourceService(source: $0, ingest: ingest) } + [
            tokenUpdater, ExpirySweeper(store: store, approvals: approvals, logger: logger), watchdog, reloader,
            ShutdownHooks(events: events, inFlight: inFlight, logger: logger),
        ]
        let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint],
                                                      logger: logger))
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
