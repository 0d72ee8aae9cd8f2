import Logging
import Testing
@testable import SystemdSupport

@Suite struct ConsoleFormatTests {
    private let noon = 1_795_341_600  // 2026-11-22T10:00:00Z

    @Test func plainLine() {
        let line = ConsoleFormat.line(
            level: .warning, message: "relay unreachable",
            metadata: ["error": "connection refused", "attempt": "3"],
            label: "pushagentd", time: noon, syslogPrefix: false)
        #expect(line == "2026-11-22T10:00:00Z warning [pushagentd] relay unreachable attempt=3 error=\"connection refused\"\n")
    }

    @Test func journalStreamLineHasPriorityAndNoTimestamp() {
        let line = ConsoleFormat.line(
            level: .error, message: "boom", metadata: ["approval_id": "a1"],
            label: "pushrelay", time: noon, syslogPrefix: true)
        #expect(line == "<3>error [pushrelay] boom approval_id=a1\n")
    }

    @Test func staysOnOneLine() {
        let line = ConsoleFormat.line(
            level: .info, message: "two\nlines", metadata: ["v": "say \"hi\"\nbye", "empty": ""],
            label: "x", time: noon, syslogPrefix: true)
        #expect(line == #"<6>info [x] two\nlines empty="" v="say \"hi\"\nbye""# + "\n")
    }
}
