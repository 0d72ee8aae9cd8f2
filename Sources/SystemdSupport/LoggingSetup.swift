import Foundation
import Logging
import Synchronization

public enum LoggingSetup {
    enum Backend: Equatable {
        case journal
        case console
    }

    private static let bootstrapped = Atomic<Bool>(false)

    /// Installs the process-wide log handler. Every Logger reports under `label` (the program name), so
    /// `journalctl -t <label>` also finds what libraries log, at `level` until `ProcessLogLevel.current` changes.
    /// swift-log traps on a second `LoggingSystem.bootstrap`, so later calls here do nothing.
    public static func bootstrap(label: String, level: Logger.Level,
                                 environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard bootstrapped.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        let stderrIsJournal = StandardError.isJournalStream(environment: environment)
        let backend = choose(
            forced: environment["PUSHAGENT_LOG_FORMAT"],
            stderrIsJournal: stderrIsJournal,
            invocationID: environment["INVOCATION_ID"],
            journalSocketExists: access(Journald.socketPath, F_OK) == 0)
        ProcessLogLevel.current = level
        LoggingSystem.bootstrap { _ in
            switch backend {
            case .journal: SharedLevelLogHandler(JournaldLogHandler(label: label))
            case .console: SharedLevelLogHandler(ConsoleLogHandler(label: label, syslogPrefix: stderrIsJournal))
            }
        }
    }

    /// Native journald only under systemd (INVOCATION_ID, or stderr already going to the journal) with the
    /// socket present; `PUSHAGENT_LOG_FORMAT=journal|console` overrides, anything else auto-detects.
    static func choose(
        forced: String?,
        stderrIsJournal: Bool,
        invocationID: String?,
        journalSocketExists: Bool
    ) -> Backend {
        switch forced {
        case "journal": return .journal
        case "console": return .console
        default: break
        }
        let underSystemd = stderrIsJournal || !(invocationID ?? "").isEmpty
        return underSystemd && journalSocketExists ? .journal : .console
    }
}
