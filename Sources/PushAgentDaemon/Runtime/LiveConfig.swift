import Synchronization

/// The running configuration. A reload (SIGHUP) replaces it and the services read it on each use, so changed
/// operators, log level and timings apply without a restart.
final class LiveConfig: Sendable {
    private let value: Mutex<AgentConfig>

    init(_ config: AgentConfig) { value = Mutex(config) }

    var current: AgentConfig { value.withLock { $0 } }

    func replace(with config: AgentConfig) { value.withLock { $0 = config } }
}
