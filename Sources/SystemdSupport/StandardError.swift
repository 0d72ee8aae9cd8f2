import Foundation

enum StandardError {
    /// One write per line where possible, so lines from concurrent tasks don't interleave.
    static func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            bytes = bytes.dropFirst(written)
        }
    }

    /// systemd sets JOURNAL_STREAM to the `device:inode` of the stream it connected; a child whose stderr
    /// was redirected inherits the variable, so only a matching fd 2 counts.
    static func isJournalStream(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        var info = stat()
        guard fstat(STDERR_FILENO, &info) == 0 else { return false }
        return journalStream(environment["JOURNAL_STREAM"], matchesDevice: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    static func journalStream(_ value: String?, matchesDevice device: UInt64, inode: UInt64) -> Bool {
        guard let value else { return false }
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let d = UInt64(parts[0]), let i = UInt64(parts[1]) else { return false }
        return d == device && i == inode
    }
}
