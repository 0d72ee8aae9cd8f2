import Glibc
import Logging
import Testing
@testable import SystemdSupport

/// Everything that reads or sets process-wide environment variables, one test at a time.
@Suite(.serialized) struct ProcessEnvironmentTests {
    @Test func readyDeliversToNotifySocket() throws {
        let listener = try DatagramListener()
        defer { listener.close() }
        let sent = withEnvironment(["NOTIFY_SOCKET": listener.path]) {
            SystemdNotifier.ready(status: "serving 2 accounts")
        }
        #expect(sent)
        #expect(try listener.receive() == "READY=1\nSTATUS=serving 2 accounts")
    }

    @Test func statusCannotInjectAssignments() throws {
        let listener = try DatagramListener()
        defer { listener.close() }
        withEnvironment(["NOTIFY_SOCKET": listener.path]) {
            _ = SystemdNotifier.status("degraded\nREADY=1")
        }
        #expect(try listener.receive() == "STATUS=degraded READY=1")
    }

    @Test func reloadingCarriesMonotonicTime() throws {
        let listener = try DatagramListener()
        defer { listener.close() }
        withEnvironment(["NOTIFY_SOCKET": listener.path]) {
            _ = SystemdNotifier.reloading()
        }
        let lines = try listener.receive().split(separator: "\n")
        #expect(lines.first == "RELOADING=1")
        let usec = try #require(lines.last?.split(separator: "=").last.flatMap { UInt64($0) })
        #expect(usec > 0)
    }

    @Test func notifyWithoutSocketIsNoOp() {
        withEnvironment(["NOTIFY_SOCKET": nil]) {
            #expect(!SystemdNotifier.ready(status: "x"))
            #expect(!SystemdNotifier.watchdog())
        }
    }

    @Test func watchdogInterval() {
        withEnvironment(["WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "\(getpid())"]) {
            #expect(SystemdNotifier.watchdogInterval() == .seconds(3))
        }
        withEnvironment(["WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "\(getpid() + 1)"]) {
            #expect(SystemdNotifier.watchdogInterval() == nil)
        }
        withEnvironment(["WATCHDOG_USEC": nil, "WATCHDOG_PID": nil]) {
            #expect(SystemdNotifier.watchdogInterval() == nil)
        }
    }

    @Test func stderrJournalStreamDetection() {
        var info = stat()
        #expect(fstat(STDERR_FILENO, &info) == 0)
        withEnvironment(["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"]) {
            #expect(StandardError.isJournalStream())
        }
        withEnvironment(["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino + 1)"]) {
            #expect(!StandardError.isJournalStream())
        }
    }

    @Test func bootstrapTwiceIsHarmless() {
        withEnvironment(["PUSHAGENT_LOG_FORMAT": "console"]) {
            LoggingSetup.bootstrap(label: "pushagentd", level: .debug)
            LoggingSetup.bootstrap(label: "other", level: .info)
        }
        let logger = Logger(label: "some.library")
        let handler = logger.handler as? SharedLevelLogHandler<ConsoleLogHandler>
        #expect(handler?.base.label == "pushagentd")
        #expect(logger.logLevel == .debug)
        ProcessLogLevel.current = .notice
        #expect(logger.logLevel == .notice, "a reload's level applies to loggers made before it")
        ProcessLogLevel.current = .debug
    }
}

/// Sets (or, for nil, unsets) variables for the duration of `body`, then restores the previous values.
private func withEnvironment<T>(_ variables: [String: String?], _ body: () throws -> T) rethrows -> T {
    let saved = variables.keys.map { ($0, getenv($0).map { String(cString: $0) }) }
    defer {
        for (name, value) in saved { set(name, value) }
    }
    for (name, value) in variables { set(name, value) }
    return try body()
}

private func set(_ name: String, _ value: String?) {
    if let value { setenv(name, value, 1) } else { unsetenv(name) }
}
