import Foundation
import Synchronization

/// The connector calls under way, by the request number the C shim reports their outcome with.
final class Deliveries: Sendable {
    private struct Waiting {
        let continuation: CheckedContinuation<ConnectorDelivery, Never>
        /// A Connector2 Message's id, which the app's reply echoes as its acknowledgement.
        let acknowledging: String?
    }

    private let state = Mutex((next: UInt64(1), waiting: [UInt64: Waiting]()))

    func add(_ continuation: CheckedContinuation<ConnectorDelivery, Never>, acknowledging id: String?) -> UInt64 {
        state.withLock { state in
            let request = state.next
            state.next += 1
            state.waiting[request] = Waiting(continuation: continuation, acknowledging: id)
            return request
        }
    }

    /// Ends a call; a request already ended (by `failAll`) is left alone.
    func resolve(_ request: UInt64, _ outcome: ConnectorDelivery) {
        state.withLock { $0.waiting.removeValue(forKey: request) }?.continuation.resume(returning: outcome)
    }

    /// The app's reply (errorName nil) or the error it or the bus answered with.
    func replied(_ request: UInt64, errorName: String?, errorMessage: String?, acknowledgedID: String?) {
        guard let waiting = state.withLock({ $0.waiting.removeValue(forKey: request) }) else { return }
        waiting.continuation.resume(returning: Self.outcome(errorName: errorName, errorMessage: errorMessage,
                                                            acknowledgedID: acknowledgedID,
                                                            expectedID: waiting.acknowledging))
    }

    /// What the distributor acts on: an app that is neither running nor installed (its registration can go) apart
    /// from one that failed this time. A Connector2 reply without an id still shows the app got the call; one with
    /// another id acknowledges some other message.
    static func outcome(errorName: String?, errorMessage: String?, acknowledgedID: String?,
                        expectedID: String?) -> ConnectorDelivery {
        if let errorName {
            let text = "\(errorName): \(errorMessage ?? "")"
            switch errorName {
            case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
                return .appNotFound(text)
            default:
                return .failed(text)
            }
        }
        if let expectedID, let acknowledgedID, acknowledgedID != expectedID {
            return .failed("the app acknowledged message id \"\(acknowledgedID)\", not \"\(expectedID)\"")
        }
        return .delivered
    }

    func failAll(_ reason: String) {
        let all = state.withLock { state in
            defer { state.waiting = [:] }
            return state.waiting.values
        }
        for waiting in all { waiting.continuation.resume(returning: .failed(reason)) }
    }
}
