import Synchronization

/// The relay loop's proof of life: the watchdog pings systemd only while this keeps moving.
final class Heartbeat: Sendable {
    private let last = Mutex(ContinuousClock.now)

    func beat() { last.withLock { $0 = .now } }

    var sinceLastBeat: Duration { last.withLock { .now - $0 } }
}
