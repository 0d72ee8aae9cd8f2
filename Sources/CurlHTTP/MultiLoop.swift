import CCurl
import Foundation

/// The curl multi handle and the one thread that drives it, so waiting on sockets never
/// occupies a thread of Swift's cooperative pool. Other threads only post commands to the
/// inbox and wake the loop with curl_multi_wakeup, the one multi call that is thread-safe.
/// `inbox` is guarded by `lock`; `multi` and `running` belong to the loop thread: hence `@unchecked Sendable`.
/// NSLock rather than Synchronization.Mutex: Mutex's futex is invisible to ThreadSanitizer, which then
/// reports every inbox access as a race.
final class MultiLoop: @unchecked Sendable {
    private enum Command {
        case add(Transfer, Delivery)
        case cancel(Transfer)
    }

    private struct Inbox {
        var commands: [Command] = []
        var stopping = false
    }

    private let multi: UnsafeMutableRawPointer
    private let lock = NSLock()
    private var inbox = Inbox()
    private var running: [UnsafeMutableRawPointer: Transfer] = [:]

    init() {
        guard let multi = curl_multi_init() else { fatalError("curl_multi_init failed") }
        self.multi = multi
        let thread = Thread { [self] in run() }
        thread.name = "curl-multi"
        thread.start()
    }

    func submit(_ transfer: Transfer, _ delivery: Delivery) {
        if !post(.add(transfer, delivery)) {
            delivery.complete(.failure(HTTPClientError.clientShutDown))
        }
    }

    func cancel(_ transfer: Transfer) {
        post(.cancel(transfer))
    }

    func shutdown() {
        lock.withLock {
            guard !inbox.stopping else { return }
            inbox.stopping = true
            curl_multi_wakeup(multi)
        }
    }

    /// Wakes the loop while holding the lock: once `stopping` is seen the loop frees `multi`,
    /// so no wakeup may race with that.
    @discardableResult
    private func post(_ command: Command) -> Bool {
        lock.withLock {
            guard !inbox.stopping else { return false }
            inbox.commands.append(command)
            curl_multi_wakeup(multi)
            return true
        }
    }

    private func run() {
        var stillRunning: Int32 = 0
        while true {
            let (commands, stopping) = lock.withLock {
                defer { inbox.commands.removeAll() }
                return (inbox.commands, inbox.stopping)
            }
            commands.forEach(apply)
            if stopping { break }
            curl_multi_perform(multi, &stillRunning)
            collectFinished()
            // curl_multi_poll shortens this wait to curl's own next timeout, and wakeup interrupts it.
            curl_multi_poll(multi, nil, 0, 60_000, nil)
        }
        for transfer in running.values {
            finish(transfer, with: .failure(HTTPClientError.clientShutDown))
        }
        curl_multi_cleanup(multi)
    }

    private func apply(_ command: Command) {
        switch command {
        case .add(let transfer, let delivery):
            if case .cancelledBeforeStart = transfer.phase {
                transfer.phase = .finished
                delivery.complete(.failure(CancellationError()))
                return
            }
            let code = curl_multi_add_handle(multi, transfer.handle)
            guard code == CURLM_OK else {
                transfer.phase = .finished
                delivery.complete(.failure(HTTPClientError.transport(
                    code: Int(code.rawValue), message: "curl_multi_add_handle: \(String(cString: curl_multi_strerror(code)))")))
                return
            }
            transfer.phase = .running(delivery)
            running[transfer.handle] = transfer
        case .cancel(let transfer):
            switch transfer.phase {
            case .built: transfer.phase = .cancelledBeforeStart
            case .running: finish(transfer, with: .failure(CancellationError()))
            case .cancelledBeforeStart, .finished: break
            }
        }
    }

    private func collectFinished() {
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            // The message is freed by curl_multi_remove_handle, so read it first.
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                  let transfer = running[handle] else { continue }
            let code = message.pointee.data.result
            finish(transfer, with: transfer.outcome(code).mapError { $0 })
        }
    }

    /// Removing the easy handle is what really aborts a transfer still in progress.
    private func finish(_ transfer: Transfer, with result: Result<HTTPResponse, any Error>) {
        guard case .running(let delivery) = transfer.phase else { return }
        curl_multi_remove_handle(multi, transfer.handle)
        running[transfer.handle] = nil
        transfer.phase = .finished
        delivery.complete(result)
    }
}
