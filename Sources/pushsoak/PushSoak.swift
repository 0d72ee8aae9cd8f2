import ArgumentParser
import ClusterHarness
import ControlWire
import Foundation
import PushSim
import Synchronization

/// Pushes through the real relay and daemon while both are killed and the link between them misbehaves, then checks
/// that nothing the relay accepted was lost or doubled, and that approved answers reached the provider once.
struct PushSoak: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushsoak",
        abstract: "Soak pushrelay + pushagentd with SIGKILLs and a faulty link; fail on any lost or duplicated push.",
        discussion: "Every option also comes from the environment (PUSHSOAK_PUSHES, PUSHSOAK_RATE, PUSHSOAK_DURATION, "
            + "PUSHSOAK_KILL_INTERVAL, PUSHSOAK_FAULT_RATE, PUSHSOAK_APPROVE_SHARE, PUSHSOAK_SEED, PUSHSOAK_APPS, "
            + "PUSHSOAK_EXPIRING_SHARE); flags win. --transport webpush sends Web Push messages to UnifiedPush apps instead "
            + "(pushctl webpush distributor on a private session bus, scripts/unifiedpush-connector.sh as the apps); "
            + "--approve-share does not apply there.")

    @Option(help: "Directory with the built programs (default .build/debug).") var binDir: String?
    @Option(help: "Pushes to send, alternating ForgeRock and PlusAuth (default 3000); with --transport webpush, Web Push messages (default 1000).")
    var pushes: Int?
    @Option(help: "Pushes per second (default 20; with --transport webpush, 10).") var rate: Double?
    @Option(help: "Seconds the sending (and killing) may last at most; fewer pushes go out if it ends first.")
    var duration = env("PUSHSOAK_DURATION", 300.0)
    @Option(help: "Mean seconds between SIGKILLs (of the daemon or the relay; default 5, with --transport webpush 4).")
    var killInterval: Double?
    @Option(help: "Share of kills aimed at the relay (0…1).") var relayKillShare = env("PUSHSOAK_RELAY_KILL_SHARE", 0.5)
    @Option(help: "Share of daemon→relay requests the proxy faults (0…1).") var faultRate = env("PUSHSOAK_FAULT_RATE", 0.15)
    @Option(help: "Share of pushes approved (0…1).") var approveShare = env("PUSHSOAK_APPROVE_SHARE", 0.1)
    @Option(help: "Seed of the random plan (default: random, printed).") var seed = env("PUSHSOAK_SEED", UInt64.random(in: 1...UInt64.max))
    @Option(help: "How pushes travel: relay (pushrelay's long poll) or fcm (pushsim's FCM emulator and MCS; then the transport's kills are the emulator's and stalled MCS sessions'); webpush: Web Push messages to UnifiedPush apps through the relay, pushagentd and its distributor.")
    var transport = env("PUSHSOAK_TRANSPORT", "relay")
    @Option(help: "With --transport webpush: the UnifiedPush apps (bus names of one connector process) the messages are spread over.")
    var apps = env("PUSHSOAK_APPS", 10)
    @Option(help: "With --transport webpush: the share of messages (0…1) posted with a 1–2 s TTL while pushagentd lies killed, held down until it ran out; none may arrive.")
    var expiringShare = env("PUSHSOAK_EXPIRING_SHARE", 0.05)

    /// The flag, else its PUSHSOAK_ variable, else the transport's default: the Web Push soak sends fewer messages,
    /// slower, between more kills (each of its messages goes through more processes, and its kills of pushagentd
    /// last seconds longer).
    private var pushCount: Int { pushes ?? env("PUSHSOAK_PUSHES", transport == "webpush" ? 1000 : 3000) }
    private var pushRate: Double { rate ?? env("PUSHSOAK_RATE", transport == "webpush" ? 10.0 : 20.0) }
    private var meanKillInterval: Double { killInterval ?? env("PUSHSOAK_KILL_INTERVAL", transport == "webpush" ? 4.0 : 5.0) }

    func validate() throws {
        guard ["relay", "fcm", "webpush"].contains(transport) else {
            throw ValidationError("--transport must be relay, fcm or webpush, not '\(transport)'")
        }
        guard pushCount > 0, pushRate > 0, duration > 0, meanKillInterval > 0, apps > 0 else {
            throw ValidationError("--pushes, --rate, --duration, --kill-interval and --apps must be positive")
        }
        for (name, share) in [("--relay-kill-share", relayKillShare), ("--fault-rate", faultRate), ("--approve-share", approveShare),
                              ("--expiring-share", expiringShare)]
        where !(0...1).contains(share) {
            throw ValidationError("\(name) must be from 0 to 1, not \(share)")
        }
    }

    func run() async throws {
        if let binDir { setenv("PUSHAGENT_BIN_DIR", URL(fileURLWithPath: binDir).path, 1) }
        // A peer hanging up on the proxy must not end the soak.
        signal(SIGPIPE, SIG_IGN)
        if transport == "webpush" {
            return try await WebPushSoak(pushes: pushCount, rate: pushRate, duration: duration, killInterval: meanKillInterval,
                                         relayKillShare: relayKillShare, faultRate: faultRate, appCount: apps,
                                         expiringShare: expiringShare, seed: seed).run()
        }
        let pushes = pushCount
        let transportKills = transport == "fcm" ? "the FCM emulator or its MCS session, half each" : "the relay"
        say("pushsoak: seed \(seed); \(pushes) pushes through \(transport) at \(pushRate)/s for at most \(Int(duration)) s; a SIGKILL "
            + "every ~\(meanKillInterval) s (\(Int(relayKillShare * 100)) % \(transportKills)); \(Int(faultRate * 100)) % of "
            + "daemon→relay requests faulted; \(Int(approveShare * 100)) % approved")
        let started = ContinuousClock.now
        let snapshot = try ProgramSnapshot()
        defer { snapshot.remove() }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pushsoak-fcm-\(UUID())").path
        var emulator: EmulatorSlot?
        if transport == "fcm" {
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            emulator = try await EmulatorSlot(directory: scratch)
        }
        let cluster = try await Cluster(simSendsThrough: emulator?.current.sendBaseURL)
        let verdict: SoakVerdict
        do {
            verdict = try await soak(cluster, emulator: emulator, started: started)
            await emulator?.current.stop()
            try? FileManager.default.removeItem(atPath: scratch)
        } catch {
            await emulator?.current.stop()
            await cluster.stopAll(removeDirectory: false)
            say("pushsoak: state kept in \(cluster.directory)")
            throw error
        }
        say("duration \(String(format: "%.1f", (ContinuousClock.now - started).seconds)) s")
        await cluster.stopAll(removeDirectory: !verdict.failed)
        if verdict.failed {
            say("pushsoak: FAILED; the programs' state is kept in \(cluster.directory)")
            throw ExitCode(1)
        }
    }

    private func soak(_ cluster: Cluster, emulator: EmulatorSlot?, started: ContinuousClock.Instant) async throws -> SoakVerdict {
        let random = SoakRandom(seed: seed)
        guard let relayPort = URL(string: cluster.relayURL)?.port else { throw HarnessError("relay URL without a port: \(cluster.relayURL)") }
        let proxy = try FaultProxy(upstreamPort: relayPort, random: random)
        defer { proxy.close() }
        cluster.relayURLForDaemon = proxy.url
        let killer = ProcessKiller(cluster: cluster, emulator: emulator, random: random, meanInterval: meanKillInterval,
                                   relayShare: relayKillShare)
        try await cluster.startDaemon(extraEnvironment: killer.daemonEnvironment)
        let fcmApp = emulator.map { _ in FCMEmulatorProcess.appName }
        if fcmApp != nil {
            try await eventually("pushagentd logged in to the FCM emulator") {
                try await cluster.client.status().pushSources?.first { $0.name == "fcm" }?.state == "connected"
            }
        }
        let sim = SimAdminClient(baseURL: cluster.simURL)
        _ = try await cluster.client.enroll(uri: try await sim.enrollURI(.init(account: "soak-forgerock")), fcmApp: fcmApp)
        _ = try await cluster.client.enroll(uri: try await sim.plusAuthEnrollURI(.init(account: "soak-plusauth")), fcmApp: fcmApp)

        let ledger = PushLedger()
        let sender = PushSender(sim: sim, ledger: ledger, random: random, total: pushCount, rate: pushRate, sampleRate: approveShare)
        let approver = Approver(client: cluster.client, ledger: ledger)
        let sending = SendingFlag()
        let deadline = started + .seconds(duration)

        proxy.setFaultRate(faultRate)
        let approving = Task { await approver.run() }
        let progress = Task { await Self.reportProgress(ledger: ledger, kills: killer.kills) }
        let sendingStarted = ContinuousClock.now
        let sent: Int
        do {
            async let kills: Void = killer.run(until: deadline) { sending.isOn }
            sent = await sender.run(until: deadline)
            sending.turnOff()
            try await kills
        }
        let sendingTime = ContinuousClock.now - sendingStarted
        progress.cancel()
        proxy.setFaultRate(0)
        approving.cancel()
        await approving.value
        say("pushsoak: sending and killing done (\(sent) pushes in \(String(format: "%.1f", sendingTime.seconds)) s); settling")

        let settle = Settling(cluster: cluster, ledger: ledger, approver: approver, killer: killer)
        let outcome = try await settle.run()
        let verdict = SoakVerdict(pushes: ledger.all, approvals: outcome.approvals, answers: outcome.answers)
        SoakReport(ledger: ledger, transport: transport, proxy: proxy, kills: killer.kills, verdict: verdict, rejections: outcome.rejections,
                   approvalCount: outcome.approvals.count,
                   approveRefusals: approver.refusedApprovals, sendingTime: sendingTime).print()
        return verdict
    }
}

extension PushSoak {
    /// A line every 20 s, so a long run shows it is alive.
    static func reportProgress(ledger: PushLedger, kills: KillCounter) async {
        while (try? await Task.sleep(for: .seconds(20))) != nil {
            say("pushsoak: \(ledger.all.count) pushes sent (\(ledger.count(.accepted)) accepted), "
                + "kills: " + ProcessKiller.Target.allCases.map { "\($0.rawValue) \(kills[$0])" }.joined(separator: ", "))
        }
    }
}

/// Tells the killer the senders are done, so it stops with them rather than at the deadline.
final class SendingFlag: Sendable {
    private let value = Atomic<Bool>(true)
    var isOn: Bool { value.load(ordering: .relaxed) }
    func turnOff() { value.store(false, ordering: .relaxed) }
}

/// One line to standard output, unbuffered: progress reaches a CI log as it happens, in order.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// An option's default from the environment, so `make soak` and CI can size a run without editing flags.
private func env<T: LosslessStringConvertible>(_ name: String, _ fallback: T) -> T {
    ProcessInfo.processInfo.environment[name].flatMap { T($0) } ?? fallback
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
