import Glibc
import Logging

/// One readable line per entry on stderr, for terminals, containers and services whose journal socket is
/// unavailable.
public struct ConsoleLogHandler: LogHandler {
    public let label: String
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let syslogPrefix: Bool

    /// `syslogPrefix` nil means: prefix `<N>` priorities exactly when stderr is a journald stream.
    public init(
        label: String,
        syslogPrefix: Bool? = nil,
        metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider
    ) {
        self.label = label
        self.syslogPrefix = syslogPrefix ?? StandardError.isJournalStream()
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        StandardError.write(ConsoleFormat.line(
            level: event.level, message: event.message.description,
            metadata: LogMetadata.merge(handler: metadata, provider: metadataProvider, event: event),
            label: label, time: time(nil), syslogPrefix: syslogPrefix))
    }
}

enum ConsoleFormat {
    /// `2026-11-22T10:00:00Z warning [label] message key=value …`, or with `syslogPrefix`
    /// `<4>warning [label] message …`: journald parses the priority and stamps the time itself.
    static func line(
        level: Logger.Level,
        message: String,
        metadata: Logger.Metadata,
        label: String,
        time: time_t,
        syslogPrefix: Bool
    ) -> String {
        let head = syslogPrefix ? "<\(JournaldFields.priority(level))>" : timestamp(time) + " "
        var line = "\(head)\(level) [\(label)] \(escapeNewlines(message))"
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            line += " \(key)=\(quoted(LogMetadata.flatten(value)))"
        }
        return line + "\n"
    }

    static func timestamp(_ time: time_t) -> String {
        var t = time
        var parts = tm()
        gmtime_r(&t, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%SZ", &parts)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A raw newline would start a new entry (at default priority, when stderr is a journald stream).
    private static func escapeNewlines(_ s: String) -> String {
        s.replacing("\r", with: "\\r").replacing("\n", with: "\\n")
    }

    /// Quoted when a reader could not otherwise tell where the value ends.
    private static func quoted(_ value: String) -> String {
        guard value.isEmpty || value.contains(where: { $0.isWhitespace || $0 == "\"" }) else {
            return value
        }
        let escaped = value.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
        return "\"" + escapeNewlines(escaped) + "\""
    }
}
