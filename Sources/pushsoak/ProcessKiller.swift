import ClusterHarness
import Foundation
import Synchronization

/// Kills pushagentd or the push transport with SIGKILL at random moments and starts it again on the same state
/// (and ports), as a crash followed by systemd's restart would: the relay, or on the FCM path the FCM emulator
/// (Google restarting, its state kept) and MCS sessions that go silent without heartbeats.
struct ProcessKiller: Sendable {
    enum Target: String, CaseIterable, Sendable {
        case daemon, relay, emulator
        /// Not a kill: the emulator's next MCS session goes silent (a stalled link), which pushagentd must notice.
        case mcsStall = "mcs stall"
    }

    let cluster: Cluster
    /// The FCM emulator on the FCM path; nil on the relay's.
    let emulator: EmulatorSlot?
    let random: SoakRandom
    /// Mean seconds between kills; each wait is drawn from half to one and a half times it.
    let meanInterval: Double
    /// The share of kills aimed at the transport (the relay, or the FCM emulator and its MCS sessions half each).
    let relayShare: Double
    let kills = KillCounter()
    /// Run while a killed daemon lies down, before it is started again (the Web Push soak's short-TTL messages).
    var whileDaemonDown: (@Sendable () async throws -> Void)?

    private func nextTarget() -> Target {
        guard random.chance(relayShare) else { return .daemon }
        guard emulator != nil else { return .relay }
        return random.chance(0.5) ? .emulator : .mcsStall
    }

    /// Kills until `deadline` or until `keepGoing` says stop; whatever it killed is running again when it returns.
    /// A program that died without being killed is counted, its output printed, and started again.
    func run(until deadline: ContinuousClock.Instant, while keepGoing: @Sendable () -> Bool) async throws {
        while true {
            let next = ContinuousClock.now + .milliseconds(Int(meanInterval * random.uniform(0.5...1.5) * 1000))
            while ContinuousClock.now < next {
                guard keepGoing(), ContinuousClock.now < deadline else { return }
                try await restartCrashed()
                try await Task.sleep(for: .milliseconds(100))
            }
            try await killAndRestart(nextTarget())
        }
    }

    private func process(_ target: Target) -> ManagedProcess? {
        switch target {
        case .daemon: cluster.daemon
        case .relay: cluster.relay
        case .emulator: emulator?.current.process
        case .mcsStall: nil
        }
    }

    /// Starts again whatever ended on its own; the soak reports these, as no kill explains them.
    func restartCrashed() async throws {
        for target in Target.allCases {
            guard let process = process(target), !process.isRunning else { continue }
            kills.countCrash(target)
            say("pushsoak: the \(target.rawValue) exited by itself; its last output:\n\(process.text.suffix(4000))")
            try await start(target)
        }
    }

    func killAndRestart(_ target: Target) async throws {
        if target == .mcsStall, let emulator {
            _ = try await emulator.current.misbehave("silent")
            return kills.count(target)
        }
        guard let process = process(target) else { return }
        process.signal(SIGKILL)
        _ = try await process.waitForExit()
        kills.count(target)
        if target == .daemon, let whileDaemonDown { try await whileDaemonDown() }
        // Down for a moment, so senders and polls meet a dead port, not only a restarted one.
        try await Task.sleep(for: .milliseconds(Int(random.uniform(0.05...1.0) * 1000)))
        try await start(target)
    }

    /// A few tries: a loaded machine can make a start time out, and that is not what the soak measures.
    private func start(_ target: Target) async throws {
        for attempt in 1...3 {
            do {
                switch target {
                case .daemon: try await cluster.startDaemon(extraEnvironment: daemonEnvironment, waitForRelay: false)
                case .relay: try await cluster.startRelay()
                case .emulator: try await emulator?.restart()
                case .mcsStall: break
                }
                return
            } catch where attempt < 3 {
                say("pushsoak: restarting the \(target.rawValue) failed (\(error)); trying again")
                process(target)?.signal(SIGKILL)
                try await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// Warnings only: the daemon logs every push at info, and its output is kept in memory for the whole run. On the
    /// FCM path, the emulator's settings, with a 2 s heartbeat so that a stalled session is given up within 8 s.
    var daemonEnvironment: [String: String] {
        let base = ["PUSHAGENT_LOG_LEVEL": "warning"]
        guard let emulator else { return base }
        return emulator.current.daemonEnvironment.merging(base) { $1 }.merging(["PUSHAGENT_FCM_HEARTBEAT_SECONDS": "2"]) { $1 }
    }
}

/// The FCM emulator of an FCM soak, replaced by a new process (on the same ports, certificate and state file, all in
/// its directory) after each kill: the daemon reconnects to it without being restarted itself.
final class EmulatorSlot: Sendable {
    private let emulator: Mutex<FCMEmulatorProcess>

    init(directory: String) async throws {
        emulator = Mutex(try await FCMEmulatorProcess(directory: directory, stateFile: directory + "/fcm-state.json"))
    }

    var current: FCMEmulatorProcess { emulator.withLock { $0 } }

    func restart() async throws {
        let restarted = try await current.restarted()
        emulator.withLock { $0 = restarted }
    }
}

/// Kills by target, and exits nobody asked for.
final class KillCounter: Sendable {
    private let kills = Mutex<[ProcessKiller.Target: Int]>([:])
    private let crashes = Mutex<[ProcessKiller.Target: Int]>([:])
    func count(_ target: ProcessKiller.Target) { kills.withLock { $0[target, default: 0] += 1 } }
    func countCrash(_ target: ProcessKiller.Target) { crashes.withLock { $0[target, default: 0] += 1 } }
    subscript(_ target: ProcessKiller.Target) -> Int { kills.withLock { $0[target] ?? 0 } }
    func crashes(_ target: ProcessKiller.Target) -> Int { crashes.withLock { $0[target] ?? 0 } }
}
