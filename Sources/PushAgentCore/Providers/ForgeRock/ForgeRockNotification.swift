import Foundation

/// A verified ForgeRock push: everything needed to show it and, later, to answer it.
public struct ForgeRockNotification: AnswerContext, Sendable, Equatable {
    public enum PushType: String, Codable, Sendable {
        /// Approve or deny.
        case `default`
        /// Pick the number shown at sign-in.
        case challenge
        /// Approve only after local user verification; nothing extra goes on the wire.
        case biometric
    }

    /// The FCM `messageId` (never the JWT's `m`, which is display text); AM identifies the answer by it.
    public var messageId: String
    public var mechanismUid: String
    /// Standard base64, padded.
    public var challenge: String
    public var ttlSeconds: Int
    /// Decoded `l`, sent back as `Cookie` with the answer.
    public var cookie: String?
    public var issuedAt: Date
    public var text: String?
    public var pushType: PushType
    /// The choices of a `challenge` push.
    public var numbers: [String]?
    /// `x`, parsed; a string when it was not JSON.
    public var contextInfo: JSONValue?
    public var userId: String?

    public var expiresAt: Date { issuedAt.addingTimeInterval(TimeInterval(ttlSeconds)) }

    /// Android's rule: expired once strictly past `i + t`.
    public func isExpired(at now: Date) -> Bool { now > expiresAt }
}
