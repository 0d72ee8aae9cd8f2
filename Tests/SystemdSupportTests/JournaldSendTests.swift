import Glibc
import Testing
@testable import SystemdSupport

@Suite struct JournaldSendTests {
    private static let journalRunning = access(Journald.socketPath, F_OK) == 0

    // Needs a running journald; build machines and containers usually have none, so this only runs on hosts
    // that do. Check the entry with `journalctl -t pushagent-test PUSHAGENT_TEST_RUN=…`.
    @Test(.enabled(if: journalRunning, "no journald socket on this machine"))
    func realSend() {
        let fields = JournaldFields.make(
            level: .notice, message: "systemd support test\nsecond line", metadata: ["test_run": "\(getpid())"],
            file: #fileID, function: #function, line: #line, label: "pushagent-test")
        #expect(Journald.send(fields) == 0)
    }

    // Still walks the iovec path. libsystemd treats a missing socket as "no journal here" and reports success.
    @Test(.enabled(if: !journalRunning, "journald is running here"))
    func sendWithoutJournalIsSilent() {
        #expect(Journald.send(["MESSAGE=nobody listens", "PRIORITY=6"]) == 0)
    }
}
