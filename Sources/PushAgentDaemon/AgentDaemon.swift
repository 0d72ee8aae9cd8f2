import ControlAPI
import CurlHTTP
import Foundation
import Hummingbird
import Logging
import PushAgentCore
import PushAgentStore
import ServiceLifecycle
import SystemdSupport

/// pushagentd: wires the store, the relay loop, the providers and the control socket, and runs them until SIGTERM.
public enum AgentDaemon {
    public static func run(config: AgentConfig) async throws {
        let logger = Logger(label: "pushagentd")
        try prepareDirectories(config)
        let stateLock = try InstanceLock(path: config.stateDirectory + "/pushagentd.lock")
        let store = try AgentStore(directory: config.stateDirectory)
        let http = CurlHTTPClient.shared
        let events = EventBus()
        let relayState = RelayStateBox(url: config.relayURL ?? "")
        let heartbeat = Heartbeat()
        let inFlight = InFlightAnswers()
        let providerHTTP = ProviderHTTP(http: http)
        let modules: [Provider: any ProviderModule] = [
            .forgerock: ForgeRockModule(store: store, http: providerHTTP),
            .hyphen: HyphenModule(store: store, http: providerHTTP, logger: logger),
        ]
        let hyphenSignIn = HyphenSignIn(store: store, http: providerHTTP, events: events, deviceName: config.deviceName, logger: logger)
        let approvals = ApprovalService(
            store: store, modules: modules, events: events, inFlight: inFlight,
            answerWait: .milliseconds(Int(config.answerWaitSeconds * 1000)),
            retryBackoff: (config.backoffInitialSeconds, config.backoffMaxSeconds), logger: logger)
        let ingest = PushIngest(store: store, modules: modules, events: events, logger: logger)
        let poller = RelayPoller(client: RelayDeviceClient(baseURL: config.relayURL ?? "", http: http), config: config,
                                 store: store, ingest: ingest, relayState: relayState, events: events,
                                 heartbeat: heartbeat, logger: logger)
        let routes = ControlRoutes(
            store: store, approvals: approvals,
            enrollment: EnrollmentService(store: store, modules: modules, events: events, deviceName: config.deviceName, logger: logger),
            events: events, relayState: relayState,
            policy: OperatorPolicy(operators: config.operators, daemonUid: getuid()), startedAt: Date(), logger: logger)
        let router = Router(context: PeerContext.self)
        routes.register(on: router)
        routes.registerRequests(on: router, hyphenSignIn: hyphenSignIn)

        let watchdog = SystemdWatchdog(heartbeat: heartbeat, relayState: relayState, store: store,
                                       maximumSilence: .seconds(config.pollWaitSeconds + 30))
        let socketPath = config.socketPath
        // The socket is created by bind(2) with 0777 & ~umask: set the mode there, with no window where it is wider.
        let previousMask = umask(config.socketMode.umask)
        let app = Application(
            router: router,
            configuration: .init(address: .unixDomainSocket(path: socketPath), serverName: "pushagentd"),
            onServerRunning: { _ in
                umask(previousMask)
                logger.notice("control socket listening on \(socketPath)")
                SystemdNotifier.ready(status: await watchdog.statusLine())
            },
            logger: logger)
        try await approvals.resumeUnfinished()
        try await hyphenSignIn.resumeUnfinished()
        let group = ServiceGroup(configuration: .init(
            services: [app, poller, ExpirySweeper(store: store, approvals: approvals, logger: logger), watchdog,
                       ShutdownHooks(events: events, inFlight: inFlight, logger: logger)],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
        SystemdNotifier.stopping()
        unlink(socketPath)
        withExtendedLifetime(stateLock) {}
        logger.notice("stopped")
    }

    private static func prepareDirectories(_ config: AgentConfig) throws {
        let socketDirectory = (config.socketPath as NSString).deletingLastPathComponent
        if !FileManager.default.fileExists(atPath: socketDirectory) {
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
