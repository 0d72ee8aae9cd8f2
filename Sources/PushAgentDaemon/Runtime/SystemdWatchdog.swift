import Foundation
import PushAgentStore
import ServiceLifecycle
import SystemdSupport

/// Pings systemd's watchdog only while the relay loop is alive, and keeps the unit's STATUS= line readable.
struct SystemdWatchdog: Service {
    let heartbeat: Heartbeat
    let relayState: RelayStateBox
    let store: AgentStore
    let config: LiveConfig

    /// The longest the relay loop may go without a beat: a long-poll's own timeout (wait + 15 s) plus slack.
    private var maximumSilence: Duration { .seconds(config.current.pollWaitSeconds + 20) }

    func run() async throws {
        // Half the watchdog interval, and often enough that STATUS= follows the relay state and the pending count.
        let interval = min(SystemdNotifier.watchdogInterval().map { $0 / 2 } ?? .seconds(5), .seconds(5))
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                if heartbeat.sinceLastBeat <= maximumSilence { SystemdNotifier.watchdog() }
                SystemdNotifier.status(await statusLine())
                try? await Task.sleep(for: interval)
            }
        }
    }

    func statusLine() async -> String {
        let pending = (try? await store.counts().pending) ?? 0
        let relay = relayState.current
        switch relay.state {
        case .connected: return "connected to relay, \(pending) pending"
        case .backoff:
            let wait = relay.nextTryAt.map { max(0, Int($0.timeIntervalSinceNow.rounded(.up))) } ?? 0
            return "relay unreachable, retry in \(wait)s, \(pending) pending"
        case .registering: return "registering with relay, \(pending) pending"
        case .starting: return "starting, \(pending) pending"
        }
    }
}
