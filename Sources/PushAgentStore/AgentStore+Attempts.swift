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
/// (the page cache keeps it through a kill -9), and a power cut costs a poisoned push a few more tries at most. A
/// committed message's count is forgotten with the commit; the file is rewritten whole at the next attempt.
final class AttemptLedger: Sendable {
    private struct Entry: Codable {
        var attempts: Int
        var firstAt: Date
        var lastError: String?
    }

    private struct State {
        var entries: [String: Entry]
        /// Bytes the file holds: a shorter rewrite is padded with spaces (still JSON) instead of truncated, so that
        /// no moment leaves a file that is half old, half new, or empty.
        var written: Int
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
        guard file >= 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [
                NSFilePathErrorKey: path, NSLocalizedDescriptionKey: "cannot open \(path): \(String(cString: strerror(errno)))",
            ])
        }
        let contents = FileManager.default.contents(atPath: path) ?? Data()
        // A file torn by a power cut reads as no attempts: each message in flight then gets its full tries again.
        let entries = (try? JSONDecoder().decode([String: Entry].self, from: contents)) ?? [:]
        state = Mutex(State(entries: entries.filter { now.timeIntervalSince($0.value.firstAt) < Self.keptFor },
                            written: contents.count))
    }

    deinit { close(file) }

    func begin(_ key: String, now: Date) throws -> (number: Int, lastError: String?) {
        try state.withLock { state in
            var entry = state.entries[key] ?? Entry(attempts: 0, firstAt: now)
            entry.attempts += 1
            state.entries[key] = entry
            try write(&state)
            return (entry.attempts, entry.lastError)
        }
    }

    func recordFailure(_ key: String, _ problem: String) throws {
        try state.withLock { state in
            guard state.entries[key] != nil else { return }
            state.entries[key]?.lastError = problem
            try write(&state)
        }
    }

    func forget(_ keys: some Sequence<String>) {
        state.withLock { state in
            for key in keys { state.entries[key] = nil }
        }
    }

    private func write(_ state: inout State) throws {
        var bytes = try JSONEncoder().encode(state.entries)
        let length = bytes.count
        if length < state.written { bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: state.written - length)) }
        let done = bytes.withUnsafeBytes { pwrite(file, $0.baseAddress, $0.count, 0) }
        guard done == bytes.count else {
            throw CocoaError(.fileWriteUnknown, userInfo: [
                NSFilePathErrorKey: path, NSLocalizedDescriptionKey: "cannot write \(path): \(String(cString: strerror(errno)))",
            ])
        }
        state.written = bytes.count
    }
}
