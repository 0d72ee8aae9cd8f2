import Crypto
import Foundation

extension ForgeRockNotification {
    /// The normalized approval for this push. `issuer` and `accountName` come from the enrolled account.
    public func approvalDraft(accountId: String, issuer: String, accountName: String) throws -> ApprovalDraft {
        let kind: ApprovalKind = switch pushType {
        case .default: .prompt
        case .challenge: .number
        case .biometric: .verify
        }
        let context = ApprovalContext(
            user: userId ?? accountName, location: contextInfo.flatMap(Self.location(in:)),
            userAgent: contextInfo?["userAgent"]?.stringValue ?? contextInfo?["platform"]?.stringValue,
            raw: contextInfo)
        return ApprovalDraft(
            provider: .forgerock, accountId: accountId, kind: kind, numbers: numbers, title: "Sign-in to \(issuer)",
            message: text ?? "Did you try to sign in as \(accountName)?", context: context, requestedAt: issuedAt,
            expiresAt: expiresAt, dedupeKey: dedupeKey, answerContext: try answerContext())
    }

    /// The replay key: the signed challenge, random per sign-in, and not the unsigned `messageId`, so the same JWT
    /// resent under another message id is still one approval.
    public var dedupeKey: String {
        "challenge:" + SHA256.hash(data: Data(challenge.utf8)).hex
    }

    /// AM sends `{"location": {"latitude": 49.22, "longitude": -123.11}}`; shown as "49.22, -123.11".
    private static func location(in context: JSONValue) -> String? {
        switch context["location"] {
        case .string(let text)?:
            return text
        case .object(let place)?:
            guard case .number(let latitude)? = place["latitude"], case .number(let longitude)? = place["longitude"]
            else { return nil }
            return "\(latitude), \(longitude)"
        default:
            return nil
        }
    }
}
