import CSystemd
import Foundation

/// The `sd_notify` protocol for `Type=notify` units.
///
/// Every call returns whether a message reached the service manager; outside systemd (no `NOTIFY_SOCKET`)
/// `sd_notify` sends nothing and each call is a harmless `false`, so callers need no "am I under systemd" check.
public enum SystemdNotifier {
    @discardableResult
    public static func notify(_ state: String) -> Bool {
        sd_notify(0, state) > 0
    }

    @discardableResult
    public static func ready(status: String? = nil) -> Bool {
        notify(readyMessage(status: status))
    }

    static func readyMessage(status: String?) -> String {
        ["READY=1", status.map(statusLine)].compactMap { $0 }.joined(separator: "\n")
    }

    @discardableResult
    public static func status(_ text: String) -> Bool {
        notify(statusLine(text))
    }

    @discardableResult
    public static func watchdog() -> Bool {
        notify("WATCHDOG=1")
    }

    @discardableResult
    public static func stopping() -> Bool {
        notify("STOPPING=1")
    }

    /// Call `ready(status:)` once the reload is done. systemd ≥ 253 matches reload cycles by the
    /// CLOCK_MONOTONIC time sent with RELOADING=1 (`Type=notify-reload` relies on it); older managers ignore it.
    @discardableResult
    public static func reloading() -> Bool {
        notify(reloadingMessage())
    }

    static func reloadingMessage() -> String {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let usec = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
        return "RELOADING=1\nMONOTONIC_USEC=\(usec)"
    }

    /// `WatchdogSec=` as passed in WATCHDOG_USEC, or nil when the watchdog is off or meant for another
    /// process (WATCHDOG_PID), read as sd_watchdog_enabled(3) reads them. Ping with `watchdog()` at half this
    /// interval. The environment is a parameter so that tests never change the process's own: setenv in a process
    /// whose other threads start programs (reading `environ` meanwhile) crashed the test run.
    public static func watchdogInterval(environment: [String: String] = ProcessInfo.processInfo.environment,
                                        pid: pid_t = getpid()) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let usec = UInt64(text), usec > 0 else { return nil }
        if let owner = environment["WATCHDOG_PID"], pid_t(owner) != pid { return nil }
        return .microseconds(usec)
    }

    /// A newline would end STATUS= early and let the rest of the text pose as another assignment.
    static func statusLine(_ text: String) -> String {
        "STATUS=" + String(text.map { $0.isNewline ? " " : $0 })
    }
}
