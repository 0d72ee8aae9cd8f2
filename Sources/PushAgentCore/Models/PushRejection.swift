/// Why a push was refused. Every refusal is logged with this reason, kept in the audit log and acknowledged.
public struct PushRejection: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: String, Sendable, Codable {
        case unknownDialect = "unknown_dialect"
        case malformed
        case unknownAccount = "unknown_account"
        case badSignature = "bad_signature"
        case algorithmNotAllowed = "algorithm_not_allowed"
        case expired
        case duplicate
        /// The account is bound to the machine it was enrolled on, and the machine's identity changed (PlusAuth).
        case bindingChanged = "binding_changed"
        /// A status push for a request this device does not know (made elsewhere, or already forgotten).
        case unknownRequest = "unknown_request"
        /// Processing it failed or crashed the daemon again and again: dropped so the pushes after it still arrive.
        case unprocessable
        /// Over the account's push budget (push bombing): denied at the provider unseen.
        case rateLimited = "rate_limited"
        /// The account is muted: denied at the provider as fraud, unseen.
        case muted
    }

    public var reason: Reason
    public var message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { "\(reason.rawValue): \(message)" }
}
