import Foundation

/// What the agent keeps with a Hyphen approval to answer it, and how far an approve got: once the transaction is
/// submitted its id is recorded, so a retry or a restart waits for that transaction instead of sending another.
public struct HyphenApprovalContext: Codable, Sendable, Equatable {
    /// `twoFactorAuth.id`: approve and deny name it.
    public var twoFactorAuthId: String
    /// `request.message`: `{"cadence": …}`.
    public var message: String
    /// Set once the transaction was accepted by the access node.
    public var submittedTransactionId: String?

    /// The Cadence script the approving device runs. Both SDKs pass it no arguments (protocols.md §3.5.3).
    public func cadence() throws(HyphenApproval.Refusal) -> String {
        struct Message: Decodable { var cadence: String }
        guard let message = try? JSONDecoder().decode(Message.self, from: Data(message.utf8)), !message.cadence.isEmpty
        else { throw .notATransaction }
        return message.cadence
    }
}

public enum HyphenApproval {
    public enum Refusal: Error, Equatable, CustomStringConvertible {
        case notATransaction

        public var description: String {
            switch self {
            case .notATransaction:
                "the request's message is not a {\"cadence\": …} transaction, so it cannot be approved (deny it, or approve it on a phone)"
            }
        }
    }

    /// The normalized approval of a `2fa-request`: a prompt showing the app, the sign-in's email, IP and location, and
    /// the device asking to sign in.
    public static func draft(for status: Hyphen2FAStatus, account: Account, requestedAt: Date, expiresAt: Date)
        throws(PushRejection) -> ApprovalDraft {
        let request = status.request
        let signIn = request.userOpInfo.signIn
        let user = signIn?.email ?? account.name
        let context = ApprovalContext(
            app: request.app.appName, user: user, ip: signIn?.ip, location: signIn?.location,
            userAgent: request.srcDevice.summary, raw: raw(status))
        let answerContext: Data
        do {
            answerContext = try JSONEncoder().encode(HyphenApprovalContext(twoFactorAuthId: status.id, message: request.message))
        } catch {
            throw PushRejection(.malformed, "Hyphen 2fa-request \(status.id) cannot be kept: \(error)")
        }
        return ApprovalDraft(
            provider: .hyphen, accountId: account.id, kind: .prompt, numbers: nil,
            title: "Sign-in to \(request.app.appName)",
            message: "Allow \(request.srcDevice.summary) to sign in as \(user)?",
            context: context, requestedAt: requestedAt, expiresAt: expiresAt, dedupeKey: status.id,
            answerContext: answerContext)
    }

    /// The request as shown to people: everything but the devices' push tokens (bearer-like relay tokens).
    private static func raw(_ status: Hyphen2FAStatus) -> JSONValue {
        func device(_ device: HyphenDevice) -> JSONValue {
            .object(["name": .string(device.name), "osName": .string(device.osName), "osVersion": .string(device.osVersion),
                     "deviceManufacturer": .string(device.deviceManufacturer), "deviceModel": .string(device.deviceModel),
                     "publicKey": .string(device.publicKey), "type": .string(device.type), "lang": .string(device.lang)])
        }
        let request = status.request
        var signIn: [String: JSONValue] = [:]
        if let info = request.userOpInfo.signIn {
            for (key, value) in [("email", info.email), ("ip", info.ip), ("location", info.location)] {
                if let value { signIn[key] = .string(value) }
            }
        }
        return .object([
            "twoFactorAuthId": .string(status.id), "requestId": .string(request.id),
            "app": .object(["appId": .string(request.app.appId), "appName": .string(request.app.appName)]),
            "userOpInfo": .object(["type": .string(request.userOpInfo.type), "signIn": .object(signIn)]),
            "srcDevice": device(request.srcDevice), "requestedAt": .string(request.requestedAt),
            "expiresAt": .string(status.expiresAt), "message": .string(request.message),
        ])
    }
}
