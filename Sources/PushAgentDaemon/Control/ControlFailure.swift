import ControlWire
import Hummingbird
import PushAgentStore

/// The one edge where errors become the control API's: whatever a handler throws (a service's `ServiceError`, the
/// store's `StoreError`, Hummingbird's `HTTPError`, or anything unexpected) is rendered through this.
enum ControlFailure {
    static func status(of code: ControlError.Code) -> HTTPResponse.Status {
        switch code {
        case .notFound: .notFound
        case .conflict: .conflict
        case .expired: .gone
        case .invalidArgument: .badRequest
        case .forbidden: .forbidden
        case .unavailable: .serviceUnavailable
        case .upstream: .badGateway
        case .busy: .tooManyRequests
        }
    }

    static func controlError(from error: any Error) -> ControlError {
        switch error {
        case let error as ControlError: return error
        case let error as ServiceError: return ControlError(code(of: error.kind), error.message)
        case let error as StoreError:
            switch error {
            case .notFound(let m): return ControlError(.notFound, m)
            case .ambiguous(let m): return ControlError(.invalidArgument, m)
            case .conflict(let m), .duplicateAccount(let m): return ControlError(.conflict, m)
            case .corrupt(let m): return ControlError(.unavailable, "the state database is inconsistent: \(m)")
            case .unstorable(let m): return ControlError(.invalidArgument, m)
            }
        case let error as HTTPError:
            return ControlError(error.status == .notFound ? .notFound : .invalidArgument, error.body ?? error.status.reasonPhrase)
        default:
            return ControlError(.unavailable, "internal error: \(error)")
        }
    }

    private static func code(of kind: ServiceError.Kind) -> ControlError.Code {
        switch kind {
        case .notFound: .notFound
        case .conflict: .conflict
        case .expired: .expired
        case .invalidArgument: .invalidArgument
        case .forbidden: .forbidden
        case .unavailable: .unavailable
        case .upstream: .upstream
        case .busy: .busy
        }
    }
}
