import CUnifiedPushBus
import Foundation
import Synchronization

/// Work for the thread that owns the sd-bus connection (sd-bus objects are not thread-safe): replies to kept calls,
/// calls to connectors, queries. A job gets the connection, or nil once it is closed; a job queued after that runs
/// at once on the queuing thread, under a lock the closing thread also holds, so that releasing a kept message never
/// races the connection's teardown.
final class BusJobQueue: Sendable {
    typealias Job = @Sendable (OpaquePointer?) -> Void

    private struct State {
        var jobs: [Job] = []
        /// stop() was called: the loop ends at its next turn.
        var stopRequested = false
        /// The bus thread is done with the connection: jobs run on their caller's thread.
        var closed = false
    }

    private let state = Mutex(State())
    private let closing = NSRecursiveLock()
    let wakeFD: Int32

    init(wakeFD: Int32) { self.wakeFD = wakeFD }

    deinit { up_bus_wake_fd_free(wakeFD) }

    func run(_ job: @escaping Job) {
        let queued = state.withLock { state in
            guard !state.closed else { return false }
            state.jobs.append(job)
            return true
        }
        if queued {
            up_bus_wake(wakeFD)
        } else {
            closing.lock()
            defer { closing.unlock() }
            job(nil)
        }
    }

    /// The jobs queued since the last turn, or nil when the loop is to end.
    func take() -> [Job]? {
        state.withLock { state in
            guard !state.stopRequested else { return nil }
            defer { state.jobs = [] }
            return state.jobs
        }
    }

    func requestStop() {
        let wasRunning = state.withLock { state in
            defer { state.stopRequested = true }
            return !state.stopRequested
        }
        if wasRunning { up_bus_wake(wakeFD) }
    }

    /// Ends the queue: what is still queued is handed to `teardown` (with the connection still open: a reply queued
    /// just before stop() still goes out), which also closes the connection.
    func close(_ teardown: ([Job]) -> Void) {
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
