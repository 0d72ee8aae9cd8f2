import CSessionBusLoop
import Foundation
import Synchronization

/// Work for the thread that owns an sd-bus connection (sd-bus objects are not thread-safe), woken through an eventfd:
/// the calls of the desktop notifier (DesktopNotify) and of the UnifiedPush distributor (UnifiedPushBus). A job gets
/// the C shim's bus object, or nil once the connection is closed; a job refused then runs at once on the queuing
/// thread, under a lock the closing thread also holds, so that releasing what a job keeps (a kept message) never
/// races the connection's teardown (`AfterStop.refuse` aside).
public final class BusJobQueue: Sendable {
    public typealias Job = @Sendable (OpaquePointer?) -> Void

    /// What happens to a job queued after stop() and before the thread has closed the connection.
    public enum AfterStop: Sendable {
        /// It is still run with the connection, as the thread closes it: a reply given just after stop() goes out.
        case runBeforeClosing
        /// It is refused at once, as on a closed connection, and so is any job from the moment the thread starts
        /// closing: handed nil on the queuing thread without the closing lock, so never waiting for the teardown.
        /// For jobs that keep nothing the teardown releases.
        case refuse
    }

    private struct State {
        var jobs: [Job] = []
        /// stop() was called, or the connection is closing: the loop ends at its next turn.
        var stopRequested = false
        /// The bus thread is done with the connection: jobs run on their caller's thread.
        var closed = false
    }

    private let state = Mutex(State())
    private let closing = NSRecursiveLock()
    private let afterStop: AfterStop
    private let wakeFD: Int32

    /// nil when no eventfd could be made (errno says why).
    public init?(afterStop: AfterStop) {
        wakeFD = session_bus_wake_fd_new()
        guard wakeFD >= 0 else { return nil }
        self.afterStop = afterStop
    }

    deinit { session_bus_wake_fd_free(wakeFD) }

    /// Starts the connection's thread, named `name`, running `body`; returns once `body` has resumed `opened` (the
    /// connection is open), or throws what it resumed it with.
    public static func startThread(named name: String,
                                   _ body: @escaping @Sendable (CheckedContinuation<Void, any Error>) -> Void)
        async throws {
        try await withCheckedThrowingContinuation { (opened: CheckedContinuation<Void, any Error>) in
            let thread = Thread { body(opened) }
            thread.name = name
            thread.start()
        }
    }

    public func run(_ job: @escaping Job) {
        enum Fate { case queued, refused, closed }
        let fate: Fate = state.withLock { state in
            if state.stopRequested, afterStop == .refuse { return .refused }
            if state.closed { return .closed }
            state.jobs.append(job)
            return .queued
        }
        switch fate {
        case .queued:
            session_bus_wake(wakeFD)
        case .refused:
            job(nil)
        case .closed:
            closing.lock()
            defer { closing.unlock() }
            job(nil)
        }
    }

    /// Runs `call` on the bus thread with the shim's bus object and a 512-byte buffer for the error text. A negative
    /// status throws `failure("<subject>: <the buffer's text, else strerror>")`; a closed connection throws
    /// `failure("the session bus connection is closed")`.
    public func perform<T: Sendable>(
        _ call: @escaping @Sendable (OpaquePointer, UnsafeMutablePointer<CChar>) -> (Int32, T), subject: String,
        failure: @escaping @Sendable (String) -> any Error
    ) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            run { bus in
                guard let bus else {
                    continuation.resume(throwing: failure("the session bus connection is closed"))
                    return
                }
                let error = UnsafeMutablePointer<CChar>.allocate(capacity: 512)
                defer { error.deallocate() }
                error[0] = 0
                let (status, value) = call(bus, error)
                if status < 0 {
                    let text = error[0] != 0 ? String(cString: error) : String(cString: strerror(-status))
                    continuation.resume(throwing: failure("\(subject): \(text)"))
                } else {
                    continuation.resume(returning: value)
                }
            }
        }
    }

    /// The bus thread's turns, until stop() or a lost connection: the jobs queued since the last turn, run with
    /// `bus` (the shim's object), then a turn of `connection` (its sd_bus), which dispatches what arrived to the shim's
    /// callbacks and waits up to a second for more or for a job. close() comes next.
    public func serve(_ bus: OpaquePointer, connection: OpaquePointer) {
        while let jobs = take() {
            for job in jobs { job(bus) }
            if session_bus_run_once(connection, wakeFD, 1_000_000) < 0 { break }
        }
    }

    /// The jobs queued since the last turn, or nil when the loop is to end.
    private func take() -> [Job]? {
        state.withLock { state in
            guard !state.stopRequested else { return nil }
            defer { state.jobs = [] }
            return state.jobs
        }
    }

    public func requestStop() {
        let wasRunning = state.withLock { state in
            defer { state.stopRequested = true }
            return !state.stopRequested
        }
        if wasRunning { session_bus_wake(wakeFD) }
    }

    /// Ends the queue: what is still queued is handed to `teardown` (with the connection still open: a reply queued
    /// just before stop() still goes out), which also closes the connection.
    public func close(_ teardown: ([Job]) -> Void) {
        closing.lock()
        defer { closing.unlock() }
        let left = state.withLock { state in
            state.stopRequested = true
            state.closed = true
            defer { state.jobs = [] }
            return state.jobs
        }
        teardown(left)
    }
}
