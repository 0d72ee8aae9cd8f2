import Logging

/// One log event as native journald fields (`NAME=value`), kept apart from the sending so it can be
/// checked without a journal.
enum JournaldFields {
    static func make(
        level: Logger.Level,
        message: String,
        metadata: Logger.Metadata,
        file: String,
        function: String,
        line: UInt,
        label: String
    ) -> [String] {
        // Values may span lines: sd_journal_sendv switches such fields to the length-prefixed binary form.
        var fields = [
            "MESSAGE=\(message)",
            "PRIORITY=\(priority(level))",
            "SYSLOG_IDENTIFIER=\(label)",
            "CODE_FILE=\(file)",
            "CODE_LINE=\(line)",
            "CODE_FUNC=\(function)",
        ]
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            fields.append(field(key: key, value: LogMetadata.flatten(value)))
        }
        return fields
    }

    /// syslog severities (0 emerg … 7 debug); swift-log has nothing above critical.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    static func field(key: String, value: String) -> String {
        let name = sanitizedName(key)
        if name == "MESSAGE_ID", let id = messageID(value) {
            return "MESSAGE_ID=\(id)"
        }
        return "\(name.hasPrefix("PUSHAGENT_") ? name : "PUSHAGENT_" + name)=\(value)"
    }

    /// journalctl and the catalog match MESSAGE_ID as 32 lowercase hex digits. A dashed UUID is normalized;
    /// anything else stays an ordinary PUSHAGENT_ field instead of a MESSAGE_ID nothing could match.
    static func messageID(_ value: String) -> String? {
        let hex = value.lowercased().filter { $0 != "-" }
        guard hex.utf8.count == 32, hex.utf8.allSatisfy({ isDigit($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }) else {
            return nil
        }
        return hex
    }

    /// journald drops fields whose names are not `[A-Z0-9_]`, longer than 64 characters, or start with `_`
    /// (trusted fields) or a digit; the PUSHAGENT_ prefix covers the last two.
    private static func sanitizedName(_ key: String) -> String {
        let bytes = key.uppercased().utf8.map { isUpper($0) || isDigit($0) ? $0 : UInt8(ascii: "_") }
        return String(decoding: bytes.prefix(64 - "PUSHAGENT_".utf8.count), as: UTF8.self)
    }

    private static func isDigit(_ b: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) }
    private static func isUpper(_ b: UInt8) -> Bool { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(b) }
}
