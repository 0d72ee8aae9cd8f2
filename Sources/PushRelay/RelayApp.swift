import ConnectionGuards
import HTTPTypes
import Logging
import NIOCore
import ServiceLifecycle

/// Builds the relay's services: the store's own (if any), the HTTP server, and what ends waiting long-polls when a graceful
/// shutdown starts. Run them in one `ServiceGroup`, in this order (it shuts services down last to first).
/// `onListening` gets the bound address (the real port when the configured one is 0).
public func makeRelayServices(
    config: RelayConfig,
    logger: Logger,
    onListening: @escaping @Sendable (ListenAddress) async -> Void = { _ in }
) async throws -> [any Service] {
    let metrics = RelayMetrics()
    let waiters = PollWaiters()
    let (store, storeServices) = try await openStorage(config, metrics: metrics, waiters: waiters, logger: logger)
    let revoked = try await store.revokeAccessTokens(except: config.serviceAccountKeys.map { ($0.keyID, $0.project) })
    if revoked > 0 {
        logger.notice("revoked \(revoked) access token(s) issued under service-account keys no longer configured")
    }
    if config.registrationKey == nil, !["127.0.0.1", "::1", "localhost"].contains(config.listen.host) {
        logger.warning("anyone who can reach \(config.listen) may register devices: set registration_key (--registration-key) unless a proxy in front restricts POST /v1/devices")
    }
    var router = RelayRouter()
    let devices = DeviceRoutes(
        store: store, waiters: waiters, metrics: metrics,
        registrationKeyDigest: config.registrationKey.map { secretDigest($0) }, logger: logger)
    devices.add(to: &router)
    let zeroTTL = ZeroTTLAdmission(waiters: waiters, metrics: metrics, pollsMayWaitElsewhere: store.isShared)
    SendRoutes(
        store: store, waiters: waiters, metrics: metrics,
        senderKeys: config.senderKeys.map { .init(project: $0.project, digest: secretDigest($0.key)) }, zeroTTL: zeroTTL
    ).add(to: &router)
    let webPushOrigin = WebPushOrigin(publicURL: config.publicURL)
    WebPushSubscriptionRoutes(devices: devices, origin: webPushOrigin).add(to: &router)
    PushServiceRoutes(
        store: store, waiters: waiters, metrics: metrics, zeroTTL: zeroTTL, origin: webPushOrigin,
        limiter: WebPushRateLimiter(config.webPushRateLimits)
    ).add(to: &router)
    TokenRoutes(
        store: store, metrics: metrics,
        verifier: AssertionVerifier(serviceAccountKeys: config.serviceAccountKeys, audience: TokenAudience(publicURL: config.publicURL))
    ).add(to: &router)
    router.add(.get, "/healthz") { _ in .text(.ok, "ok") }
    // Answers through a database outage, when it matters most, without the device count it cannot get.
    router.add(.get, "/metrics") { _ in
        .text(.ok, metrics.render(devices: try? await store.deviceCount(), pollsWaiting: waiters.waitingCount),
              contentType: "text/plain; version=0.0.4; charset=utf-8")
    }

    let slots = ConnectionSlots(limit: ConnectionSlots.limit(configured: config.maxConnections), logger: logger)
    let requestTimeout = TimeAmount.nanoseconds(Int64(config.requestTimeoutSeconds * 1_000_000_000))
    logger.debug("at most \(slots.limit) connections, \(requestTimeout.secondsText) s to send a request")
    let server = RelayHTTPServer(
        listen: config.listen, router: router, slots: slots, requestTimeout: requestTimeout, logger: logger,
        onListening: onListening)
    // The store's services start with the server and stop after it (a group stops its services last to first).
    return storeServices + [server, PollShutdown(waiters: waiters),
                            MemoryReturn(openConnections: { slots.openCount },
                                         drop: MemoryReturn.drop(connectionLimit: slots.limit), metrics: metrics, logger: logger)]
}

/// Ends every waiting long-poll, with an empty answer, as soon as a graceful shutdown starts: the server's own
/// shutdown waits for the requests in progress, and a long-poll would hold it for up to a minute.
private struct PollShutdown: Service {
    let waiters: PollWaiters

    func run() async throws {
        try? await gracefulShutdown()
        waiters.shutdown()
    }
}

/// What runs beside the server on SQLite: the TTL sweep (polls commit nothing of their own, so without sends nothing
/// else would delete expired messages), and at shutdown, after the server, the commit of what polls wrote.
private struct SQLiteUpkeep: Service {
    let store: SQLiteRelayStore
    let logger: Logger

    func run() async {
        await cancelWhenGracefulShutdown {
            while (try? await Task.sleep(for: PostgresRelayService.sweepInterval)) != nil {
                try? await store.sweepWhenExpired(now: nowMilliseconds())
            }
        }
        do {
            try await store.commitPendingWrites()
        } catch {
            logger.warning("could not commit the last acknowledgements before stopping (their messages will be delivered again): \(error)")
        }
    }
}

/// The configured store, and what has to run beside the server for it.
private func openStorage(
    _ config: RelayConfig, metrics: RelayMetrics, waiters: PollWaiters, logger: Logger
) async throws -> (any RelayStorage, [any Service]) {
    let onExpired: @Sendable (Int) -> Void = { metrics.add(.expired, $0) }
    switch config.database {
    case .sqlite(let directory):
        let store = try SQLiteRelayStore(directory: directory, maximumQueuedPerDevice: config.maximumQueuedPerDevice, onExpired: onExpired)
        return (store, [SQLiteUpkeep(store: store, logger: logger)])
    case .postgres(let settings):
        let store = try await PostgresRelayStore.open(settings, maximumQueuedPerDevice: config.maximumQueuedPerDevice, logger: logger)
        logger.info("state in \(settings), shared with every relay instance on it")
        return (store, [PostgresRelayService(store: store, waiters: waiters, onExpired: onExpired, logger: logger)])
    }
}
