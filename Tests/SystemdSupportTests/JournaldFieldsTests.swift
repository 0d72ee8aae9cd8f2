import Logging
import Testing
@testable import SystemdSupport

@Suite struct JournaldFieldsTests {
    private func fields(
        _ metadata: Logger.Metadata = [:], level: Logger.Level = .info, message: String = "hello"
    ) -> [String] {
        JournaldFields.make(
            level: level, message: message, metadata: metadata,
            file: "PushAgentDaemon/RelayLoop.swift", function: "run()", line: 42, label: "pushagentd")
    }

    @Test func standardFields() {
        #expect(fields() == [
            "MESSAGE=hello",
            "PRIORITY=6",
            "SYSLOG_IDENTIFIER=pushagentd",
            "CODE_FILE=PushAgentDaemon/RelayLoop.swift",
            "CODE_LINE=42",
            "CODE_FUNC=run()",
        ])
    }

    @Test(arguments: [
        (Logger.Level.trace, 7), (.debug, 7), (.info, 6), (.notice, 5), (.warning, 4), (.error, 3), (.critical, 2),
    ])
    func priority(level: Logger.Level, expected: Int) {
        #expect(fields(level: level).contains("PRIORITY=\(expected)"))
    }

    @Test func multiLineMessageKeptWhole() {
        #expect(fields(message: "first\nsecond\n")[0] == "MESSAGE=first\nsecond\n")
    }

    @Test func messageIDMapping() {
        #expect(fields(["message_id": "8D45620C1A4348DBB17410DA57C60C66"]).last == "MESSAGE_ID=8d45620c1a4348dbb17410da57c60c66")
        #expect(fields(["message_id": "8d45620c-1a43-48db-b174-10da57c60c66"]).last == "MESSAGE_ID=8d45620c1a4348dbb17410da57c60c66")
        // Not a 128-bit id: kept, but not as a MESSAGE_ID nothing could match.
        #expect(fields(["message_id": "approval-granted"]).last == "PUSHAGENT_MESSAGE_ID=approval-granted")
    }

    @Test func metadataKeysBecomePrefixedFieldNames() {
        let extra = fields([
            "approval_id": "a1",
            "pushagent_socket": "/run/pushagent/pushagentd.sock",
            "http.status-code": "503",
            "1st": "x",
            "_boot": "y",
        ]).dropFirst(6)
        #expect(Array(extra) == [
            "PUSHAGENT_1ST=x",
            "PUSHAGENT__BOOT=y",
            "PUSHAGENT_APPROVAL_ID=a1",
            "PUSHAGENT_HTTP_STATUS_CODE=503",
            "PUSHAGENT_SOCKET=/run/pushagent/pushagentd.sock",
        ])
    }

    @Test func fieldNamesFitJournaldLimit() throws {
        let field = try #require(fields([String(repeating: "k", count: 100): "v"]).last)
        let name = try #require(field.split(separator: "=").first)
        #expect(name.count <= 64)
        #expect(name.hasPrefix("PUSHAGENT_KKK"))
    }

    @Test func nestedMetadataFlattened() {
        let nested: Logger.Metadata = ["request": ["path": "/v1/approvals", "ids": ["a", "b"], "attempt": .stringConvertible(2)]]
        #expect(fields(nested).last == "PUSHAGENT_REQUEST={attempt=2, ids=[a, b], path=/v1/approvals}")
    }
}
