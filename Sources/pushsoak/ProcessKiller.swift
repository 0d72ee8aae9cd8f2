import ClusterHarness
import Foundation
import Synchronization

/// Kills pushagentd or pushrelay with SIGKILL at random moments and starts it again on the same state (and, for the
/// relay, the same port), as a crash followed by systemd's restart would.
struct ProcessKiller: Sendable {
    enum Target: String, CaseIterable, Sendable { case daemon, relay }

    let cluster: Cluster
    let random: SoakRandom
    /// Mean seconds between kills; each wait is drawn from half to one and a half times it.
    let meanInterval: Double
    /// The share of kills aimed at the relay.
    let relayShare: Double
    let kills = KillCounter()

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
            try await killAndRestart(random.chance(relayShare) ? .relay : .daemon)
        }
    }

    /// Starts again whatever ended on its own; the soak reports these, as no kill explains them.
    func restartCrashed() async throws {
        for target in Target.allCases {
            guard let process = target == .daemon ? cluster.daemon : cluster.relay, !process.isRunning else { continue }
            kills.countCrash(target)
            say("pushsoak: the \(target.rawValue) exited by itself; its last output:\n\(process.text.suffix(4000))")
            try await start(target)
        }
    }

    private func killAndRestart(_ target: Target) async throws {
        let process = target == .daemon ? cluster.daemon : cluster.relay
        guard let process else { return }
        process.signal(SIGKILL)
        _ = try await process.waitForExit()
        kills.count(target)
        // Down for a moment, so senders and polls meet a dead port, not only a restarted one.
        try await Task.sleep(for: .milliseconds(Int(random.uniform(0.05...1.0) * 1000)))
        try await start(target)
    }

    /// A few tries: a loaded machine can make a start time out, and that is not what the soak measures.
    private func start(_ target: Target) async throws {
        for attempt in 1...3 {
            do {
                switch target {
                case .daemon: try await cluster.startDaemon(extraEnvironment: Self.daemonEnvironment, waitForRelay: false)
                case .relay: try await cluster.startRelay()
                }
                return
            } catch where attempt < 3 {
                say("pushsoak: restarting the \(target.rawValue) failed (\(error)); trying again")
                (target == .daemon ? cluster.daemon : cluster.relay)?.signal(SIGKILL)
                try await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// Warnings only: the daemon logs every push at info, and its output is kept in memory for the whole run.
    static let daemonEnvironment = ["PUSHAGENT_LOG_LEVEL": "warning"]
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
