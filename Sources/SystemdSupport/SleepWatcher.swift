import CSystemd
import Foundation
import Synchronization

/// Tells when the machine woke from suspend: logind's `PrepareForSleep(false)` on the system bus
/// ($DBUS_SYSTEM_BUS_ADDRESS, else the standard socket). Connections that slept are dead though their sockets look
/// open, and finding out by missed heartbeats takes minutes; a wake lets them be replaced at once.
///
/// Any process on the bus could send that signal (a match on logind's well-known name would not hold for a sender
/// that merely claims it): the worst it can do is make the agent reconnect, so it is taken as it comes.
public final class SleepWatcher: Sendable {
    /// How many wakes there were; connections wait on it.
    public let wakes = WakeCounter()
    private let failure = Mutex<(problem: String?, report: (@Sendable (String) -> Void)?)>((nil, nil))

    /// The process's one watcher, started on first use.
    public static let shared = SleepWatcher()

    /// Watches on a thread of its own, which blocks on the bus (no timer, no CPU while nothing happens).
    private init() {
        let thread = Thread { [self] in
            if let problem = watch() { failed(problem) }
        }
        thread.name = "sleep-watcher"
        thread.start()
    }

    /// Where to say that wakes cannot be watched (no system bus, or it went away), once: the agent then relies on
    /// heartbeats and timeouts.
    public func onFailure(_ report: @escaping @Sendable (String) -> Void) {
        let problem = failure.withLock { state in
            state.report = report
            return state.problem
        }
        if let problem { report(problem) }
    }

    private func failed(_ problem: String) {
        failure.withLock { state in
            state.problem = problem
            return state.report
        }?(problem)
    }


    /// Runs until the bus fails; returns what failed.
    private func watch() -> String? {
        var bus: OpaquePointer?
        var result = sd_bus_open_system(&bus)
        guard result >= 0, let bus else {
            return "no system bus (\(String(cString: strerror(-result)))): a wake from suspend is noticed by the next missed heartbeat"
        }
        defer { sd_bus_unref(bus) }
        result = sd_bus_match_signal(bus, nil, nil, "/org/freedesktop/login1", "org.freedesktop.login1.Manager",
                                     "PrepareForSleep", { message, userdata, _ in
            var sleeping: Int32 = 1
            if sd_bus_message_read_basic(message, CChar(UInt8(ascii: "b")), &sleeping) >= 0, sleeping == 0, let userdata {
                Unmanaged<SleepWatcher>.fromOpaque(userdata).takeUnretainedValue().wakes.increment()
            }
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
        guard result >= 0 else { return "cannot watch for wakes from suspend: \(String(cString: strerror(-result)))" }
        while true {
            result = sd_bus_process(bus, nil)
            if result > 0 { continue }
            if result >= 0 { result = sd_bus_wait(bus, UInt64.max) }
            if result < 0 && result != -EINTR {
                return "the system bus connection failed (\(String(cString: strerror(-result)))): wakes from suspend are noticed by missed heartbeats from now on"
            }
        }
    }
}

/// A count that tasks wait to see pass a value they saw; waiting ends early when the task is cancelled.
public final class WakeCounter: Sendable {
    private struct State {
        var count = 0
        var nextWatcher = 0
        /// What to do at the next wake, by watcher.
        var watchers: [Int: @Sendable () -> Void] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    public var count: Int { state.withLock { $0.count } }

    public func increment() {
        let due = state.withLock { state in
            state.count += 1
            defer { state.watchers = [:] }
            return Array(state.watchers.values)
        }
        for action in due { action() }
    }

    /// `operation`'s result, unless a wake past `seen` comes first: then `operation` is cancelled, and the result is nil
    /// unless it finished all the same.
    public func unlessWoken<T: Sendable>(past seen: Int, _ operation: @escaping @Sendable () async throws -> T)
        async throws -> T? {
        // One task, which a wake cancels. A task group racing it against a task waiting for the wake cost every
        // long-poll two tasks more, and the thread switches that started, cancelled and collected them.
        let task = Task { try await operation() }
        let watcher = newWatcher()
        if !watch(watcher, past: seen, { task.cancel() }) { task.cancel() }
        defer { stopWatching(watcher) }
        do {
            return try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
        } catch {
            // However the operation ends once cancelled (a transfer aborted is not always a CancellationError).
            if Task.isCancelled { throw CancellationError() }
            if count > seen { return nil }
            throw error
        }
    }

    /// Returns once the count is past `seen` (at once if it already is), or once the task is cancelled.
    public func wait(past seen: Int) async {
        let watcher = newWatcher()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if !watch(watcher, past: seen, { continuation.resume() }) { continuation.resume() }
            }
        } onCancel: {
            stopWatching(watcher)?()
        }
    }

    private func newWatcher() -> Int {
        state.withLock { state in
            state.nextWatcher += 1
            return state.nextWatcher
        }
    }

    /// Keeps `action` for the next wake; false, keeping nothing, when a wake past `seen` came already or the task is
    /// cancelled (checked under the lock that `stopWatching` takes, so a cancellation cannot fall between them).
    private func watch(_ watcher: Int, past seen: Int, _ action: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state in
            guard state.count <= seen, !Task.isCancelled else { return false }
            state.watchers[watcher] = action
            return true
        }
    }

    /// The watcher's action, taken out unrun; nil once a wake ran it.
    @discardableResult
    private func stopWatching(_ watcher: Int) -> (@Sendable () -> Void)? {
        state.withLock { $0.watchers.removeValue(forKey: watcher) }
    }
}
