import ArgumentParser
import ClusterHarness
import ControlClient
import Foundation

/// `pushsoak --transport webpush` (issue 45 item 4): Web Push messages from application servers to UnifiedPush apps
/// through the real pushrelay, pushagentd, `pushctl webpush distributor` on a private session bus, and one process
/// of scripts/unifiedpush-connector.sh (a connector written from the UnifiedPush D-Bus specification, dbus-fast from
/// PyPI) owning every app's bus name, while pushagentd and pushrelay are SIGKILLed and restarted on their state and
/// the link between them is faulted. Some messages go with a TTL that runs out while pushagentd lies killed.
/// Fails unless every message the relay accepted with the long TTL reached its app exactly once, decrypted to what
/// was sent, in the order its app's sender posted, and none of the others did (expired, refused, never sent).
struct WebPushSoak {
    let pushes: Int
    let rate: Double
    let duration: Double
    let killInterval: Double
    let relayKillShare: Double
    let faultRate: Double
    let appCount: Int
    let expiringShare: Double
    let seed: UInt64

    var expiringCount: Int { Int((Double(pushes) * expiringShare).rounded()) }

    func run() async throws {
        say("pushsoak: seed \(seed); \(pushes) Web Push messages to \(appCount) UnifiedPush apps at \(rate)/s for at most "
            + "\(Int(duration)) s, \(expiringCount) of them with a 1–2 s TTL while pushagentd lies killed; a SIGKILL every "
            + "~\(killInterval) s (\(Int(relayKillShare * 100)) % the relay); \(Int(faultRate * 100)) % of daemon→relay requests faulted")
        guard sessionBusAvailable else { throw HarnessError("the Web Push soak needs \(sessionBusPrograms.joined(separator: " and "))") }
        let started = ContinuousClock.now
        let snapshot = try ProgramSnapshot()
        defer { snapshot.remove() }
        try await UnifiedPushConnector.install()
        let cluster = try await Cluster(startRelay: false)
        let parts = Parts()
        let verdict: WebPushVerdict
        do {
            try await startRelay(cluster)
            parts.bus = try await PrivateSessionBus.start()
            verdict = try await soak(cluster, parts: parts)
        } catch {
            say("pushsoak: \(error)")
            await parts.stop()
            await cluster.stopAll(removeDirectory: false)
            say("pushsoak: state kept in \(cluster.directory)")
            throw error
        }
        say("duration \(String(format: "%.1f", (ContinuousClock.now - started).seconds)) s")
        await parts.stop()
        // SIGKILL, not SIGTERM: a Web Push message long poll (the distributor's, 30 s) holds pushagentd's graceful
        // shutdown until it ends even after its client went away, and ManagedProcess.stop would wait 10 s for nothing.
        cluster.daemon?.signal(SIGKILL)
        await cluster.stopAll(removeDirectory: !verdict.failed)
        if verdict.failed {
            say("pushsoak: FAILED; the programs' state and the apps' log (apps.jsonl) are kept in \(cluster.directory)")
            throw ExitCode(1)
        }
    }

    /// The relay with a config of the soak's: endpoints name the relay itself (pushagentd reaches it through the fault
    /// proxy, whose address the relay would otherwise put in them), and two of the three Web Push rate limits off.
    /// One client on loopback stands in for every app's server here: the per-address limit (100 a second after
    /// 1000) would take the keyless apps' messages from all those servers for one sender's, as behind a TLS proxy
    /// (docs/relay.md), and the per-subscription one (10 a second after 100) would refuse an app's sender catching up
    /// after a relay outage, or a run at a higher --rate. At the default rates neither is reached; the soak checks
    /// delivery through kills, not the limiter (WebPushRateLimiterTests and WebPushOriginRateTests do). The VAPID
    /// key's limit stays, and the device's queue cap (1000 undelivered; pushagentd lies down a few seconds at most,
    /// so at 20 a second it holds about a hundred): a 429 from either is sent again after its Retry-After, as a
    /// sender does, and counts as refused.
    private func startRelay(_ cluster: Cluster) async throws {
        let config = cluster.directory + "/pushrelay.toml"
        try """
        public_url = "\(cluster.relayURL)"
        webpush_subscription_burst = 0
        webpush_address_burst = 0

        """.write(toFile: config, atomically: true, encoding: .utf8)
        cluster.relayArguments = ["--config", config]
        try await cluster.startRelay()
    }

    private func soak(_ cluster: Cluster, parts: Parts) async throws -> WebPushVerdict {
        guard let bus = parts.bus else { throw HarnessError("no session bus") }
        let random = SoakRandom(seed: seed)
        guard let relayPort = URL(string: cluster.relayURL)?.port else { throw HarnessError("relay URL without a port: \(cluster.relayURL)") }
        let proxy = try FaultProxy(upstreamPort: relayPort, random: random)
        defer { proxy.close() }
        cluster.relayURLForDaemon = proxy.url
        var configured = ProcessKiller(cluster: cluster, emulator: nil, random: random, meanInterval: killInterval,
                                       relayShare: relayKillShare)
        try await cluster.startDaemon(extraEnvironment: configured.daemonEnvironment)

        parts.distributor = try ManagedProcess(name: "pushctl webpush distributor", executable: Binaries.path("pushctl"),
                                               arguments: ["webpush", "distributor", "--socket", cluster.socketPath],
                                               environment: bus.environment)
        _ = try await parts.distributor?.waitForLine(startingWith: "pushctl webpush distributor: serving")
        var apps = SoakApp.make(count: appCount)
        let log = cluster.directory + "/apps.jsonl"
        parts.connector = try await UnifiedPushConnector.serve(apps.map(\.service), log: log, on: bus)
        let vapid = SoakVAPIDKey()
        for app in apps {
            let extra = ["--description", "pushsoak app \(app.index)"] + (app.restricted ? ["--vapid", vapid.publicKey] : [])
            let registered = try await UnifiedPushConnector.register(app.service, token: app.token, version: app.version, on: bus, extra: extra)
            guard registered.success == "REGISTRATION_SUCCEEDED" else { throw HarnessError("\(app.service) could not register: \(registered)") }
        }
        try await eventually("every app got its endpoint through NewEndpoint", timeout: .seconds(60)) {
            let endpoints = UnifiedPushConnector.loggedCalls(log).filter { $0.method == "NewEndpoint" }
            for index in apps.indices {
                apps[index].endpoint = endpoints.last { $0.token == apps[index].token }?.endpoint ?? ""
            }
            return apps.allSatisfy { $0.endpoint.hasPrefix(cluster.relayURL + "/push/") }
        }

        let ledger = WebPushLedger()
        let target = WebPushLanes.Target(port: relayPort, origin: cluster.relayURL, vapid: vapid)
        let lanes = WebPushLanes(apps: apps, target: target, ledger: ledger, total: pushes - expiringCount, rate: rate, random: random)
        let (interval, daemonShare) = (killInterval, 1 - relayKillShare)
        let windows = ExpiryWindows(apps: apps, target: target, ledger: ledger, random: random, total: expiringCount,
                                    firstMessage: lanes.total) {
            Int(lanes.secondsLeft / interval * daemonShare)
        }
        configured.whileDaemonDown = { try await windows.duringOutage() }
        let killer = configured
        let sending = SendingFlag()
        let deadline = ContinuousClock.now + .seconds(duration)

        proxy.setFaultRate(faultRate)
        let progress = Task { await Self.reportProgress(ledger: ledger, kills: killer.kills) }
        let sendingStarted = ContinuousClock.now
        do {
            async let kills: Void = killer.run(until: deadline) { sending.isOn }
            await lanes.run(until: deadline)
            sending.turnOff()
            try await kills
        }
        // What the run's daemon kills did not take: one more outage.
        if windows.left > 0 { try await killer.killAndRestart(.daemon) }
        let sendingTime = ContinuousClock.now - sendingStarted
        progress.cancel()
        proxy.setFaultRate(0)
        say("pushsoak: sending and killing done (\(ledger.all.count) POSTs in \(String(format: "%.1f", sendingTime.seconds)) s); settling")

        try await settle(cluster: cluster, killer: killer, ledger: ledger, log: log, parts: parts)
        let received = try? await cluster.client.webPushSubscriptions().subscriptions.map(\.received).reduce(0, +)
        let verdict = WebPushVerdict(attempts: ledger.all, abandoned: ledger.abandonedMessages,
                                     calls: UnifiedPushConnector.loggedCalls(log), apps: apps)
        WebPushReport(apps: apps, ledger: ledger, windows: windows.held, longMessages: lanes.total, proxy: proxy,
                      kills: killer.kills, verdict: verdict, daemonReceived: received, sendingTime: sendingTime).print()
        for part in [parts.distributor, parts.connector].compactMap({ $0 }) where !part.isRunning {
            say("pushsoak: \(part.name) exited during the run; its last output:\n\(part.text.suffix(4000))")
            throw HarnessError("\(part.name) exited during the run")
        }
        return verdict
    }

    /// No more kills or faults: waits until every accepted long-TTL message reached its app and pushagentd holds
    /// none undelivered (or nothing moves for a minute), then a few seconds more, for anything that should not
    /// come (a duplicate, an expired message) to have the time to.
    private func settle(cluster: Cluster, killer: ProcessKiller, ledger: WebPushLedger, log: String, parts: Parts) async throws {
        try await killer.restartCrashed()
        let expected = Set(ledger.all.filter { !$0.expiring && $0.outcome == .accepted }.map(\.bodyKey))
        let started = ContinuousClock.now
        let deadline = started + .seconds(300)
        var (seen, lastProgress) = (-1, started)
        while true {
            let arrived = Set(UnifiedPushConnector.loggedCalls(log).compactMap { $0.method == "Message" ? $0.message_b64 : nil })
            let present = expected.intersection(arrived).count
            let waiting = try? await cluster.client.webPushSubscriptions().subscriptions.map(\.undelivered).reduce(0, +)
            if present == expected.count, waiting == 0 {
                say("pushsoak: every accepted message at its app \(String(format: "%.1f", (ContinuousClock.now - started).seconds)) s "
                    + "after the last kill's restart; waiting 3 s more for anything that should not come")
                break
            }
            if present > seen { (seen, lastProgress) = (present, ContinuousClock.now) }
            guard ContinuousClock.now < deadline, ContinuousClock.now - lastProgress < .seconds(60),
                  parts.distributor?.isRunning == true, parts.connector?.isRunning == true else {
                say("pushsoak: stopped waiting with \(present) of \(expected.count) accepted messages at their apps, "
                    + "\(waiting.map(String.init) ?? "?") undelivered in pushagentd")
                return
            }
            try await Task.sleep(for: .seconds(1))
        }
        try await Task.sleep(for: .seconds(3))
    }

    /// A line every 20 s, so a long run shows it is alive.
    static func reportProgress(ledger: WebPushLedger, kills: KillCounter) async {
        while (try? await Task.sleep(for: .seconds(20))) != nil {
            say("pushsoak: \(ledger.all.count) POSTs (\(ledger.count(.accepted)) accepted), kills: daemon \(kills[.daemon]), relay \(kills[.relay])")
        }
    }
}

/// The processes of the soak that Cluster does not own, stopped on every way out.
private final class Parts: @unchecked Sendable {
    var bus: PrivateSessionBus?
    var distributor: ManagedProcess?
    var connector: ManagedProcess?

    func stop() async {
        await distributor?.stop()
        await connector?.stop()
        await bus?.stop()
    }
}
