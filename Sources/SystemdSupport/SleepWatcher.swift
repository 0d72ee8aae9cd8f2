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
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    public var count: Int { state.withLock { $0.count } }

    public func increment() {
        let waiters = state.withLock { state in
            state.count += 1
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// `operation`'s result, unless a wake past `seen` comes first: then nil, and `operation` is cancelled.
    public func unlessWoken<T: Sendable>(past seen: Int, _ operation: @escaping @Sendable () async throws -> T)
        async throws -> T? {
        try await withThrowingTaskGroup(of: T?.self) { race in
            race.addTask { try await operation() }
            race.addTask {
                await self.wait(past: seen)
                try Task.checkCancellation()
                return nil
            }
            defer { race.cancelAll() }
            return try await race.next() ?? nil
        }
    }

    /// Returns once the count is past `seen` (at once if it already is), or once the task is cancelled.
    public func wait(past seen: Int) async {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    guard state.count <= seen, !Task.isCancelled else { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
