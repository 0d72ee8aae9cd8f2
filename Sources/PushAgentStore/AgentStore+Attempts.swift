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
/// and one that grew to several lines per count left is written again in full (`compact`).
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
        var entries: [String: Entry]
        /// Where the next line goes: the end of the last line written.
        var end: Int
        /// Bytes the file holds. A compaction overwrites the lines it drops with spaces (blank to a reader) in the same
        /// write as the lines it keeps, rather than truncating after it: a crash in between would leave old lines after
        /// the new ones, each read back as the last word on its message.
        var length: Int
        /// Lines since the last compaction, which decide the next.
        var lines: Int
        /// Bytes written since the ledger was opened.
        var written = 0
    }

    /// Longer than any push may wait (expiry is at most a day after arrival): the count a crash left of a message
    /// committed meanwhile, or never delivered again, is dropped at a start once it is older than this.
    private static let keptFor: TimeInterval = 2 * 86_400

    private let path: String
    private let file: Int32
    private let state: Mutex<State>

    init(path: String, now: Date = Date()) throws {
        self.path = path
        file = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard file >= 0 else { throw Self.failure("cannot open", path) }
        let contents = FileManager.default.contents(atPath: path) ?? Data()
        let entries = Self.read(contents).filter { now.timeIntervalSince($0.value.firstAt) < Self.keptFor }
        state = Mutex(State(entries: entries, end: contents.count, length: contents.count, lines: 0))
        try state.withLock { try compact(&$0) }
    }

    deinit { close(file) }

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
    /// emptied or compacted, and a line read back at a start counts only for a message delivered again, which a
    /// committed one is not taken up for.
    func forget(_ keys: some Sequence<String>) {
        state.withLock { state in
            for key in keys { state.entries[key] = nil }
            // Not emptied, the file keeps lines that the next compaction drops.
            if state.entries.isEmpty, state.length > 0 { try? compact(&state) }
        }
    }

    /// The last line of each message; lines a power cut tore, and blank padding, are skipped. A file written before
    /// the ledger was a log (one JSON object of every count) is read too.
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

    private func append(_ line: Line, _ state: inout State) throws {
        if state.lines > max(1024, 4 * state.entries.count) { try compact(&state) }
        var bytes = try JSONEncoder().encode(line)
        bytes.append(UInt8(ascii: "\n"))
        try write(bytes, at: state.end, &state)
        state.end += bytes.count
        state.length = max(state.length, state.end)
        state.lines += 1
    }

    /// Writes every count again, one line each, from the start of the file; with none left, empties it.
    private func compact(_ state: inout State) throws {
        if state.entries.isEmpty {
            guard ftruncate(file, 0) == 0 else { throw Self.failure("cannot empty", path) }
            state = State(entries: [:], end: 0, length: 0, lines: 0, written: state.written)
            return
        }
        let encoder = JSONEncoder()
        var bytes = Data()
        for (key, entry) in state.entries {
            bytes += try encoder.encode(Line(key: key, entry: entry))
            bytes.append(UInt8(ascii: "\n"))
        }
        let end = bytes.count
        if end < state.length { bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: state.length - end)) }
        try write(bytes, at: 0, &state)
        state.end = end
        state.length = bytes.count
        state.lines = state.entries.count
    }

    private func write(_ bytes: Data, at offset: Int, _ state: inout State) throws {
        let done = bytes.withUnsafeBytes { pwrite(file, $0.baseAddress, $0.count, off_t(offset)) }
        guard done == bytes.count else { throw Self.failure("cannot write", path) }
        state.written += bytes.count
    }

    var bytesWritten: Int { state.withLock { $0.written } }

    private static func failure(_ what: String, _ path: String) -> CocoaError {
        CocoaError(.fileWriteUnknown, userInfo: [
            NSFilePathErrorKey: path, NSLocalizedDescriptionKey: "\(what) \(path): \(String(cString: strerror(errno)))",
        ])
    }
}
