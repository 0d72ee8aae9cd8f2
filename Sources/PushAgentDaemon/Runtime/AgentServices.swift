import Foundation
import Hummingbird
import Logging
import PushAgentStore
import ServiceLifecycle
import SystemdSupport

/// pushagentd's parts wired together in the order a push flows: providers, ingest, push sources, approvals, and the
/// control API over them. `AgentDaemon` serves it; the control routes' in-process tests drive the same wiring.
struct AgentServices: Sendable {
    let store: AgentStore
    let config: LiveConfig
    let events = EventBus()
    let relayState: RelayStateBox
    let heartbeat = Heartbeat()
    let inFlight = InFlightAnswers()
    let modules: ProviderModules
    let approvals: ApprovalService
    let ingest: PushIngest
    let tokenUpdater: PushTokenUpdater
    let pushSources: PushSources
    let backups: BackupService
    let responder: RouterResponder<PeerContext>
    let logger: Logger

    init(store: AgentStore, config: LiveConfig, logger: Logger) {
        let settings = config.current
        self.store = store
        self.config = config
        self.logger = logger
        relayState = RelayStateBox(url: settings.relayURL ?? "")
        modules = ProviderModules(ProviderContext(store: store, http: ProviderHTTP(http: .shared), events: events,
                                                  config: config, logger: logger))
        let muting = AccountMuting(store: store, events: events, logger: logger)
        approvals = ApprovalService(store: store, modules: modules, events: events, inFlight: inFlight, config: config,
                                    muting: muting, logger: logger)
        let webPushInbox = WebPushInbox(store: store, logger: logger)
        ingest = PushIngest(store: store, modules: modules, events: events, webPush: webPushInbox, logger: logger,
                            fatigue: PushFatigueDefence(
            store: store, approvals: approvals, config: config, events: events, logger: logger))
        tokenUpdater = PushTokenUpdater(store: store, modules: modules, events: events, deviceName: settings.deviceName,
                                        config: config, logger: logger)
        // Connections that slept are dead though their sockets look open: each source replaces its own on a wake.
        let wakes = SleepWatcher.shared.wakes
        SleepWatcher.shared.onFailure { problem in logger.info("\(problem)") }
        let relayClient = RelayDeviceClient(baseURL: settings.relayURL ?? "", http: .shared)
        let relay = RelayPushSource(client: relayClient,
                                    config: config, store: store, relayState: relayState, events: events,
                                    heartbeat: heartbeat, tokenUpdater: tokenUpdater, wakes: wakes, logger: logger)
        // FCM is off until a Firebase app is configured (docs/fcm.md); adding or removing an app takes a restart.
        let registrar = FCMRegistrar(store: store, http: ProviderHTTP(http: .shared), tokenUpdater: tokenUpdater,
                                     logger: logger)
        let tlsContexts = TLSContexts()
        let fcm = settings.providers.fcm.apps.map {
            FCMPushSource(appName: $0.name, registrar: registrar, config: config, tlsContexts: tlsContexts, wakes: wakes,
                          logger: logger)
        }
        pushSources = PushSources(all: [relay] + fcm + modules.pushSources)
        let writers = Writers(policy: OperatorPolicy(config: config, daemonUid: getuid()), store: store)
        backups = BackupService(store: store, modules: modules, events: events, tokenUpdater: tokenUpdater, logger: logger)
        responder = ControlRouter(collections: [
            StatusRoutes(store: store, events: events, relayState: relayState, pushSources: pushSources,
                         polkit: approvals.polkit, startedAt: Date()),
            AccountRoutes(store: store, enrollment: EnrollmentService(store: store, modules: modules, events: events,
                                                                      deviceName: settings.deviceName, config: config,
                                                                      runningFCMApps: fcm.map(\.appName), logger: logger),
                          muting: muting, modules: modules, config: config, writers: writers),
            ApprovalRoutes(store: store, approvals: approvals, writers: writers),
            RequestRoutes(store: store, events: events),
            RefreshRoutes(pushSources: pushSources, ingest: ingest),
            FCMRoutes(sources: fcm, writers: writers),
            StepUpRoutes(stepUps: StepUpService(store: store, events: events, logger: logger)),
            BackupRoutes(backups: backups, writers: writers),
            WebPushRoutes(subscriptions: WebPushSubscriptions(store: store, relay: relayClient, inbox: webPushInbox,
                                                              logger: logger)),
        ], modules: modules, writers: writers).build(logger: logger).buildResponder()
    }

    /// Picks up what the last run left unfinished: answers being sent, providers' own work.
    func resumeUnfinished() async throws {
        try await approvals.resumeUnfinished()
        for module in modules.all { try await module.resumeUnfinished() }
    }

    /// What runs in the background besides the control server: the push sources, the token updater, the expiry
    /// sweeper, and the shutdown hooks.
    var backgroundServices: [any Service] {
        pushSources.all.map { PushSourceService(source: $0, ingest: ingest) } + [
            tokenUpdater, ExpirySweeper(store: store, approvals: approvals, logger: logger),
            ShutdownHooks(events: events, inFlight: inFlight, logger: logger),
        ]
    }
}
