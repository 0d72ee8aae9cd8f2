// Everything logged here is stored by journald, readable by the admin group and often shipped off the
// host. Never put secrets (tokens, keys, OTP seeds, answers) in messages or metadata: log ids only.

import CSystemd
import Glibc
import Logging

/// Writes native journald entries, so MESSAGE_ID, CODE_* and PUSHAGENT_* fields stay queryable
/// (`journalctl PUSHAGENT_APPROVAL_ID=…`) instead of being flattened into text.
public struct JournaldLogHandler: LogHandler {
    public let label: String
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?

    /// `label` becomes SYSLOG_IDENTIFIER, what `journalctl -t` filters on.
    public init(label: String, metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider) {
        self.label = label
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = LogMetadata.merge(handler: metadata, provider: metadataProvider, event: event)
        let fields = JournaldFields.make(
            level: event.level, message: event.message.description, metadata: merged,
            file: event.file, function: event.function, line: event.line, label: label)
        guard Journald.send(fields) < 0 else { return }
        // journald is down but its socket is left (ECONNREFUSED): keep the entry on stderr. With no socket at
        // all libsystemd drops entries silently, which is why LoggingSetup checks for it.
        StandardError.write(ConsoleFormat.line(
            level: event.level, message: event.message.description, metadata: merged, label: label,
            time: time(nil), syslogPrefix: false))
    }
}

enum Journald {
    static let socketPath = "/run/systemd/journal/socket"

    /// 0 on success (and when there is no journal socket at all), a negative errno otherwise.
    static func send(_ fields: [String]) -> Int32 {
        // One buffer for all fields keeps every iovec pointer valid for the whole call.
        var bytes: [UInt8] = []
        var ranges: [Range<Int>] = []
        for field in fields {
            let start = bytes.count
            bytes.append(contentsOf: field.utf8)
            ranges.append(start..<bytes.count)
        }
        return bytes.withUnsafeMutableBytes { raw -> Int32 in
            guard let base = raw.baseAddress else { return -EINVAL }
            let iov = ranges.map { iovec(iov_base: base + $0.lowerBound, iov_len: $0.count) }
            return iov.withUnsafeBufferPointer { sd_journal_sendv($0.baseAddress, Int32($0.count)) }
        }
    }
}
