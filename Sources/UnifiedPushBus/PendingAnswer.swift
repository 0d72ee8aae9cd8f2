import CUnifiedPushBus
import Foundation
import SessionBusThread
import Synchronization

/// A kept sd_bus_message. Only touched through BusJobQueue (on the bus thread, or under its closing lock), which is
/// what makes passing it between threads safe.
struct KeptMessage: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
}

/// The reply an app is waiting for on the bus. Answered once: the first answer is sent, later ones are ignored, and
/// if the call is dropped unanswered (the distributor stopped reading `calls`, or forgot) `fallback` is sent, so the
/// app learns now instead of at its call's timeout.
final class PendingAnswer: Sendable {
    typealias Reply = @Sendable (UnsafeMutableRawPointer) -> Void

    private let message: KeptMessage
    private let queue: BusJobQueue
    private let fallback: Reply
    private let answered = Atomic(false)

    /// Keeps `message` (a reference is taken here) until the answer has gone out.
    init(message: UnsafeMutableRawPointer, queue: BusJobQueue, fallback: @escaping Reply) {
        self.message = KeptMessage(pointer: up_bus_message_ref(message) ?? message)
        self.queue = queue
        self.fallback = fallback
    }

    func answer(_ reply: @escaping Reply) {
        guard !answered.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let message = message
        queue.run { bus in
            // A closed connection cannot carry the reply; the message is released all the same.
            if bus != nil { reply(message.pointer) }
            up_bus_message_unref(message.pointer)
        }
    }

    deinit { answer(fallback) }
}
