import Glibc
import Logging
import Testing
@testable import SystemdSupport

/// What the process reads from its environment, given as a parameter: a test never changes the process's own, since
/// setenv while other tests' threads start programs (Foundation's Process reads `environ`) crashed the test run.
/// Delivery to a real NOTIFY_SOCKET is `make test-systemd`'s (Type=notify under systemd).
struct ProcessEnvironmentTests {
    @Test func readyCarriesItsStatusOnALineOfItsOwn() {
        #expect(SystemdNotifier.readyMessage(status: "serving 2 accounts") == "READY=1\nSTATUS=serving 2 accounts")
        #expect(SystemdNotifier.readyMessage(status: nil) == "READY=1")
    }

    @Test func statusCannotInjectAssignments() {
        #expect(SystemdNotifier.statusLine("degraded\nREADY=1") == "STATUS=degraded READY=1")
    }

    @Test func reloadingCarriesMonotonicTime() throws {
        let lines = SystemdNotifier.reloadingMessage().split(separator: "\n")
        #expect(lines.first == "RELOADING=1")
        let usec = try #require(lines.last?.split(separator: "=").last.flatMap { UInt64($0) })
        #expect(usec > 0)
    }

    @Test(.enabled(if: getenv("NOTIFY_SOCKET") == nil, "run outside a Type=notify unit"))
    func notifyWithoutSocketIsNoOp() {
        #expect(!SystemdNotifier.ready(status: "x"))
        #expect(!SystemdNotifier.watchdog())
    }

    @Test func watchdogInterval() {
        let pid = getpid()
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "\(pid)"], pid: pid) == .seconds(3))
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "3000000"], pid: pid) == .seconds(3), "no PID: ours")
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "\(pid + 1)"], pid: pid) == nil)
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "0"], pid: pid) == nil)
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "soon"], pid: pid) == nil)
        #expect(SystemdNotifier.watchdogInterval(environment: [:], pid: pid) == nil)
    }

    @Test func stderrJournalStreamDetection() {
        var info = stat()
        #expect(fstat(STDERR_FILENO, &info) == 0)
        #expect(StandardError.isJournalStream(environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"]))
        #expect(!StandardError.isJournalStream(environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino + 1)"]))
        #expect(!StandardError.isJournalStream(environment: [:]))
    }

    @Test func bootstrapTwiceIsHarmless() {
        LoggingSetup.bootstrap(label: "pushagentd", level: .debug, environment: ["PUSHAGENT_LOG_FORMAT": "console"])
        LoggingSetup.bootstrap(label: "other", level: .info, environment: ["PUSHAGENT_LOG_FORMAT": "console"])
        let logger = Logger(label: "some.library")
        let handler = logger.handler as? SharedLevelLogHandler<ConsoleLogHandler>
        #expect(handler?.base.label == "pushagentd")
        #expect(logger.logLevel == .debug)
        ProcessLogLevel.current = .notice
        #expect(logger.logLevel == .notice, "a reload's level applies to loggers made before it")
        ProcessLogLevel.current = .debug
    }
}
