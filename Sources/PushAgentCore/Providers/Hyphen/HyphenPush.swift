import Foundation

/// Reading a Hyphen push (FCM data `hyphen:type` and `hyphen:data`, a JSON string; protocols.md §3.1). Each type
/// has one handler in `handlers`: a new type is one new handler. Hyphen pushes carry no signature: what they ask
/// for is checked by Hyphen's server and the Flow chain when the agent acts on them.
public enum HyphenPush {
    public static let handlers: [String: any HyphenPushHandler] = [
        HyphenTwoFactorRequestHandler.type: HyphenTwoFactorRequestHandler(),
        HyphenStatusChangeHandler.type: HyphenStatusChangeHandler(),
    ]

    /// Whether a push is Hyphen's: it names its type.
    public static func claims(_ data: [String: String]) -> Bool { data["hyphen:type"] != nil }

    /// The push's handler and its data, decoded but not yet tied to an account.
    public static func decode(_ data: [String: String]) throws(PushRejection) -> (any HyphenPushHandler, HyphenSignIn2FA) {
        let type = data["hyphen:type"] ?? ""
        guard let handler = handlers[type] else {
            let known = handlers.keys.sorted().joined(separator: ", ")
            throw PushRejection(.malformed, "Hyphen push of unknown type '\(EnrollmentURIError.excerpt(type))' (known: \(known))")
        }
        guard let text = data["hyphen:data"], !text.isEmpty else {
            throw PushRejection(.malformed, "Hyphen \(type) push: 'hyphen:data' is missing")
        }
        do {
            return (handler, try JSONDecoder().decode(HyphenSignIn2FA.self, from: Data(text.utf8)))
        } catch {
            throw PushRejection(.malformed, "Hyphen \(type) push: 'hyphen:data' is not a twoFactorAuth object (\(Self.describe(error)))")
        }
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            "missing '\((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))'"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
             DecodingError.dataCorrupted(let context):
            context.codingPath.isEmpty ? "not JSON" : "bad '\(context.codingPath.map(\.stringValue).joined(separator: "."))'"
        default: "\(error)"
        }
    }
}

/// One `hyphen:type`.
public protocol HyphenPushHandler: Sendable {
    static var type: String { get }
    /// The device of the request that is this machine; its public key finds the account.
    func ownDevice(in status: Hyphen2FAStatus) -> HyphenDevice
    /// What the push does for the account it names.
    func effect(of payload: HyphenSignIn2FA, account: Account, receivedAt: Date) throws(PushRejection) -> PushEffect
}

/// `2fa-request`: this machine is the destination device, asked to approve another device's sign-in.
public struct HyphenTwoFactorRequestHandler: HyphenPushHandler {
    public static let type = "2fa-request"

    public func ownDevice(in status: Hyphen2FAStatus) -> HyphenDevice { status.request.destDevice }

    public func effect(of payload: HyphenSignIn2FA, account: Account, receivedAt: Date) throws(PushRejection) -> PushEffect {
        let status = payload.twoFactorAuth
        guard status.status == .pending else {
            throw PushRejection(.malformed, "Hyphen 2fa-request \(status.id) is already \(status.status.rawValue)")
        }
        guard let expiresAt = HyphenTimestamp.parse(status.expiresAt) else {
            throw PushRejection(.malformed, "Hyphen 2fa-request \(status.id): expiresAt '\(EnrollmentURIError.excerpt(status.expiresAt))' is not a time")
        }
        let requestedAt = HyphenTimestamp.parse(status.request.requestedAt) ?? receivedAt
        return .approval(try HyphenApproval.draft(for: status, account: account, requestedAt: requestedAt,
                                                  expiresAt: expiresAt))
    }
}

/// `2fa-status-change`: this machine is the source device; another device approved or denied its request.
public struct HyphenStatusChangeHandler: HyphenPushHandler {
    public static let type = "2fa-status-change"

    public func ownDevice(in status: Hyphen2FAStatus) -> HyphenDevice { status.request.srcDevice }

    public func effect(of payload: HyphenSignIn2FA, account: Account, receivedAt: Date) throws(PushRejection) -> PushEffect {
        let status = payload.twoFactorAuth
        let state: TwoFactorRequestState
        switch status.status {
        case .approved: state = .approved
        case .denied: state = .denied
        case .pending: throw PushRejection(.malformed, "Hyphen 2fa-status-change \(status.id) says it is still pending")
        }
        return .requestUpdate(TwoFactorRequestUpdate(provider: .hyphen, accountId: account.id, remoteId: status.id,
                                                     state: state, txId: status.result?.txId))
    }
}
