/// Why a daemon service refused or could not do what it was asked, in its own terms. Services throw this (or the
/// store's `StoreError`); the control API's edge, `ControlFailure`, turns either into the API's error body and status.
struct ServiceError: Error, CustomStringConvertible {
    enum Kind: Sendable {
        case notFound, conflict, expired, invalidArgument, forbidden, unavailable
        /// The provider refused or could not be reached.
        case upstream
        /// Not now: other work holds what this needs, or a caller tried too often; the message says when to retry.
        case busy
    }

    let kind: Kind
    let message: String

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    var description: String { message }
}
