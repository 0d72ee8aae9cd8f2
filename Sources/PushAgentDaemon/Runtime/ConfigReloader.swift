import Logging
import ServiceLifecycle
import SystemdSupport
import UnixSignals

/// SIGHUP (`systemctl reload pushagentd`): reads the configuration again from the same sources and applies what
/// can change while running. Nothing is restarted, so pending approvals, the relay long-poll and open control
/// connections carry on. A configuration that does not load leaves the running one in place.
struct ConfigReloader: Service {
    let config: LiveConfig
    let load: @Sendable () throws -> AgentConfig
    let statusLine: @Sendable () async -> String
    let logger: Logger

    func run() async throws {
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            SystemdNotifier.reloading()
            let outcome = reload()
            SystemdNotifier.ready(status: "\(outcome); \(await statusLine())")
        }
    }

    /// Applies the reloadable changes and says in the journal what changed; returns a short summary for STATUS=.
    func reload() -> String {
        let running = config.current
        let newer: AgentConfig
        do {
            newer = try load()
        } catch {
            logger.error("configuration reload failed, still running with the previous configuration: \(error)",
                         metadata: ["message_id": "\(LogMessageID.configReloaded)"])
            return "reload failed, previous configuration kept"
        }
        let changes = running.changes(to: newer)
        let applied = changes.filter { !running.needsRestart($0.key, toApply: newer) }
        let needRestart = changes.filter { running.needsRestart($0.key, toApply: newer) }
        config.replace(with: running.reloaded(from: newer))
        ProcessLogLevel.current = newer.logLevel
        let summary = applied.isEmpty ? "configuration reloaded, nothing changed"
            : "configuration reloaded: " + applied.map(\.text).joined(separator: "; ")
        logger.notice("\(summary)", metadata: [
            "message_id": "\(LogMessageID.configReloaded)", "changed_keys": "\(applied.map(\.key).joined(separator: ","))",
        ])
        if !needRestart.isEmpty {
            logger.warning("not applied until `systemctl restart pushagentd` (pending approvals are kept): \(needRestart.map(\.text).joined(separator: "; "))",
                           metadata: ["message_id": "\(LogMessageID.configReloaded)"])
        }
        return applied.isEmpty ? "reloaded, nothing changed" : "reloaded: \(applied.map(\.key).joined(separator: ", ")) changed"
    }
}
