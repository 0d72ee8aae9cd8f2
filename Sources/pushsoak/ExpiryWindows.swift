import Foundation
import Synchronization

/// The Web Push soak's messages that must never arrive: posted with a TTL of 1 or 2 s while pushagentd lies killed
/// (the killer calls `duringOutage` between its SIGKILL and the restart), which is then held down until that TTL
/// has run out with a margin, so the relay drops them before any poll can take them. Spread over the daemon's kills
/// of the run; what is left when sending ends goes in one last outage.
final class ExpiryWindows: Sendable {
    struct Window: Sendable {
        let messages: Int
        let ttl: Int
        /// From the first POST to the end of the hold (the daemon's restart follows).
        let held: Duration
    }

    let apps: [SoakApp]
    let target: WebPushLanes.Target
    let ledger: WebPushLedger
    let random: SoakRandom
    let total: Int
    /// Message numbers start here (after the long-TTL ones).
    let firstMessage: Int
    /// How many more daemon kills the run will likely have: the quota is spread over them.
    let daemonKillsAhead: @Sendable () -> Int
    /// After the last 201 and the TTL: the relay compares expiry in milliseconds against its own clock, so this is
    /// slack for nothing but scheduling.
    static let margin: Duration = .milliseconds(1500)
    private let sent = Atomic<Int>(0)
    private let windows = Mutex<[Window]>([])

    init(apps: [SoakApp], target: WebPushLanes.Target, ledger: WebPushLedger, random: SoakRandom, total: Int,
         firstMessage: Int, daemonKillsAhead: @escaping @Sendable () -> Int) {
        self.apps = apps
        self.target = target
        self.ledger = ledger
        self.random = random
        self.total = total
        self.firstMessage = firstMessage
        self.daemonKillsAhead = daemonKillsAhead
    }

    var left: Int { total - sent.load(ordering: .relaxed) }
    var held: [Window] { windows.withLock { $0 } }

    func duringOutage() async throws {
        let left = left
        guard left > 0 else { return }
        let count = min(left, Int((Double(left) / Double(max(1, daemonKillsAhead()))).rounded(.up)))
        let ttl = random.chance(0.5) ? 1 : 2
        let picks = (0..<count).map { _ in random.element(of: apps) }
        let started = ContinuousClock.now
        var lastAnswer = started
        for app in picks {
            let message = firstMessage + sent.add(1, ordering: .relaxed).oldValue
            _ = await onThread { [self] in
                WebPushSend.post(app: app, target: target, ttl: ttl, message: message, attempt: 1, laneOrder: nil,
                                 expiring: true, ledger: ledger)
            }
            lastAnswer = ContinuousClock.now
        }
        try await Task.sleep(until: lastAnswer + .seconds(ttl) + Self.margin)
        windows.withLock { $0.append(Window(messages: count, ttl: ttl, held: started.duration(to: .now))) }
    }
}
