import CUnifiedPushBus
import Foundation
import SessionBusThread

/// Where the C shim's callbacks land, on the bus thread: apps' calls are checked and passed on to `calls`, connector
/// replies to the deliveries waiting for them.
final class CallInbox: Sendable {
    private let continuation: AsyncStream<DistributorCall>.Continuation
    private let queue: BusJobQueue
    let deliveries = Deliveries()

    init(_ continuation: AsyncStream<DistributorCall>.Continuation, queue: BusJobQueue) {
        self.continuation = continuation
        self.queue = queue
    }

    func finish() { continuation.finish() }

    /// Passes a well-formed call on, keeping its message for the answer; or says why it is refused.
    func receive(_ call: up_bus_call) -> Refusal? {
        guard let message = call.message, let token = call.token.map({ String(cString: $0) }) else {
            return Refusal("unreadable arguments")
        }
        let version: ConnectorVersion = call.version == 1 ? .v1 : .v2
        let sender = call.sender.map { String(cString: $0) } ?? ""
        let rawVersion = call.version
        if call.method == Int32(UP_BUS_REGISTER) {
            let checked = CallValidation.register(
                service: call.service.map { String(cString: $0) } ?? "", token: token,
                description: call.description.map { String(cString: $0) }, vapid: call.vapid.map { String(cString: $0) },
                version: version, sender: sender)
            switch checked {
            case .failure(let refusal): return refusal
            case .success(let register):
                let pending = PendingAnswer(message: message, queue: queue) {
                    _ = up_bus_reply_register($0, rawVersion, RegistrationFailure.internalError.rawValue)
                }
                continuation.yield(.register(register) { failure in
                    pending.answer { _ = up_bus_reply_register($0, rawVersion, failure?.rawValue) }
                })
            }
        } else {
            switch CallValidation.unregister(token: token, version: version, sender: sender) {
            case .failure(let refusal): return refusal
            case .success(let unregister):
                let pending = PendingAnswer(message: message, queue: queue) {
                    _ = up_bus_reply_error($0, "org.freedesktop.DBus.Error.Failed",
                                           "the distributor stopped before unregistering the token")
                }
                continuation.yield(.unregister(unregister) {
                    pending.answer { _ = up_bus_reply_unregister($0, rawVersion) }
                })
            }
        }
        return nil
    }
}

/// The shim's callbacks: plain C functions, reaching the inbox through the context pointer.
enum InboxCallbacks {
    static let onCall: up_bus_call_fn = { context, call, error, errorSize in
        guard let context, let call else { return -EINVAL }
        let inbox = Unmanaged<CallInbox>.fromOpaque(context).takeUnretainedValue()
        guard let refusal = inbox.receive(call.pointee) else { return 0 }
        if let error, errorSize > 0 {
            // Cut at a character, not a byte: D-Bus refuses an error text that is not UTF-8.
            var text = refusal.text
            while text.utf8.count > errorSize - 1 { text.removeLast() }
            let bytes = Array(text.utf8)
            for (index, byte) in bytes.enumerated() { error[index] = CChar(bitPattern: byte) }
            error[bytes.count] = 0
        }
        return -EINVAL
    }

    static let onReply: up_bus_reply_fn = { context, request, errorName, errorMessage, acknowledgedID in
        guard let context else { return }
        let inbox = Unmanaged<CallInbox>.fromOpaque(context).takeUnretainedValue()
        inbox.deliveries.replied(request, errorName: errorName.map { String(cString: $0) },
                                 errorMessage: errorMessage.map { String(cString: $0) },
                                 acknowledgedID: acknowledgedID.map { String(cString: $0) })
    }
}
