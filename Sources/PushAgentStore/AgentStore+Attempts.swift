import Foundation
import Synchronization

/// How often each not-yet-committed message has been taken up. A message whose processing crashes the daemon is
/// delivered again after every restart; counting the attempts is what lets the next one drop it instead of dying
/// again, so one poisoned push cannot stop every other push for good.
extension AgentStore {
    /// Records that `source` is being processed; returns which attempt this is (1 for the first) and the error the
    /// previous one reported (nil when there was none, or it crashed).
    public func beginAttempt(_ source: MessageSource, now: Date = Date()) throws -> (number: Int, lastError: String?) {
        try attempts.begin(source.processedKey, now: now)
    }

    /// Why the last attempt at `source` failed without crashing, for the rejection that drops it in the end.
    public func recordAttemptFailure(_ source: MessageSource, _ problem: String) throws {
        try attempts.recordFailure(source.processedKey, String(problem.prefix(500)))
    }
}

/// The attempt counts, in a file of their own beside the database (`ingest-attempts`) and written without waiting
/// for the disk, so that the one durable commit of a push is its message's: a count only has to outlive the process
/// (the page cache keeps it through a kill -9), and a power cut costs a poisoned push a few more tries at most.
///
/// The file is a log, one JSON line per change, the last line of a message counting: each attempt appends one line.
/// Rewritten whole at every attempt, it made a batch of n pushes write n²/2 entries (under load, a third of the
/// agent's CPU). A committed message's count is forgotten with the commit; once none is left the file is emptied,
/// and one grown to several lines per count left is written again in full, to a new file renamed over it (`compact`).
final class AttemptLedger: Sendable {
    private struct Entry: Codable {
        var attempts: Int
        var firstAt: Date
        var lastError: String?
    }

    private struct Line: Codable {
        var key: String
        var entry: Entry
    }

    private struct State {
        var file: Int32
        var entries: [String: Entry]
        /// Where the next line goes: the end of the file.
        var end: Int
        /// Lines since the file was last written whole, which decide the next time.
        var lines = 0
        /// Bytes written since the ledger was opened.
        var written = 0
    }

    /// Longer than any push may wait (expiry is at most a day after arrival): the count a crash left of a message
    /// committed meanwhile, or never delivered again, is dropped at a start once it is older than this.
    private static let keptFor: TimeInterval = 2 * 86_400

    private let path: String
    private let state: Mutex<State>

    init(path: String, now: Date = Date()) throws {
        self.path = path
        let file = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard file >= 0 else { throw Self.failure("cannot open", path) }
        let contents = FileManager.default.contents(atPath: path) ?? Data()
        let entries = Self.read(contents).filter { now.timeIntervalSince($0.value.firstAt) < Self.keptFor }
        state = Mutex(State(file: file, entries: entries, end: contents.count))
        // One line a count from the start; a full disk must not stop the daemon over it, though: the log as it is
        // still reads, and each line begins with its own newline, so one torn by a power cut ends there.
        state.withLock { try? compact(&$0) }
    }

    deinit { state.withLock { _ = close($0.file) } }

    func begin(_ key: String, now: Date) throws -> (number: Int, lastError: String?) {
        try state.withLock { state in
            var entry = state.entries[key] ?? Entry(attempts: 0, firstAt: now)
            entry.attempts += 1
            state.entries[key] = entry
            try append(Line(key: key, entry: entry), &state)
            return (entry.attempts, entry.lastError)
        }
    }

    func recordFailure(_ key: String, _ problem: String) throws {
        try state.withLock { state in
            guard var entry = state.entries[key] else { return }
            entry.lastError = problem
            state.entries[key] = entry
            try append(Line(key: key, entry: entry), &state)
        }
    }

    /// Committed: their counts are no longer needed. Nothing is written for them: their lines go when the file is
    /// emptied or written whole, and a line read back at a start counts only for a message delivered again, which a
    /// committed one is not taken up for.
    func forget(_ keys: some Sequence<String>) {
        state.withLock { state in
            for key in keys { state.entries[key] = nil }
            // Not emptied now, the file keeps lines that the next compaction drops.
            if state.entries.isEmpty, state.end > 0 { try? compact(&state) }
        }
    }

    var bytesWritten: Int { state.withLock { $0.written } }

    /// The last line of each message; lines a power cut tore are skipped. A file written before the ledger was a
    /// log (one JSON object of every count) is read too.
    private static func read(_ contents: Data) -> [String: Entry] {
        if let whole = try? JSONDecoder().decode([String: Entry].self, from: contents) { return whole }
        var entries: [String: Entry] = [:]
        let decoder = JSONDecoder()
        for text in contents.split(separator: UInt8(ascii: "\n")) {
            guard let line = try? decoder.decode(Line.self, from: text) else { continue }
            entries[line.key] = line.entry
        }
        return entries
    }

    private static func encoded(_ line: Line, _ encoder: JSONEncoder) throws -> Data {
        var bytes = Data([UInt8(ascii: "\n")])
        bytes += try encoder.encode(line)
        return bytes
    }

    private func append(_ line: Line, _ state: inout State) throws {
        // Only to keep the file short: a compaction that fails (a full disk) leaves the log as it was, still read.
        if state.lines > max(1024, 4 * state.entries.count) { try? compact(&state) }
        let bytes = try Self.encoded(line, JSONEncoder())
        // A line written in part (a full disk) is written over by the next, which begins with its own newline.
        try write(bytes, to: state.file, named: path, at: state.end, &state)
        state.end += bytes.count
        state.lines += 1
    }

    /// Writes every count again, one line each, to a new file renamed over the log, so that no moment leaves a file
    /// with old lines after new ones (a long write can stop part way at a kill -9); with none left, empties it.
    private func compact(_ state: inout State) throws {
        if state.entries.isEmpty {
            guard ftruncate(state.file, 0) == 0 else { throw Self.failure("cannot empty", path) }
            state.end = 0
            state.lines = 0
            return
        }
        let encoder = JSONEncoder()
        var bytes = Data()
        for (key, entry) in state.entries { bytes += try Self.encoded(Line(key: key, entry: entry), encoder) }
        let fresh = path + ".new"
        let file = open(fresh, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard file >= 0 else { throw Self.failure("cannot open", fresh) }
        do {
            try write(bytes, to: file, named: fresh, at: 0, &state)
            guard rename(fresh, path) == 0 else { throw Self.failure("cannot rename \(fresh) to", path) }
        } catch {
            close(file)
            unlink(fresh)
            throw error
        }
        close(state.file)
        state.file = file
        state.end = bytes.count
        state.lines = state.entries.count
    }

    private func write(_ bytes: Data, to file: Int32, named name: String, at offset: Int, _ state: inout State) throws {
        let done = bytes.withUnsafeBytes { pwrite(file, $0.baseAddress, $0.count, off_t(offset)) }
        guard done == bytes.count else { throw Self.failure("cannot write", name) }
        state.written += bytes.count
    }

    private static func failure(_ what: String, _ path: String) -> CocoaError {
        CocoaError(.fileWriteUnknown, userInfo: [
            NSFilePathErrorKey: path, NSLocalizedDescriptionKey: "\(what) \(path): \(String(cString: strerror(errno)))",
        ])
    }
}
