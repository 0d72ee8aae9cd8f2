import Foundation

/// What a dialect's handler makes of a verified push; the store turns it into an `Approval`.
public struct ApprovalDraft: Sendable, Equatable {
    /// The longest an approval stays answerable, whatever the push claims: a sign-in nobody answered within a day
    /// is abandoned, and a far-future expiry must not keep a prompt (or an unreadable stored time) around for ever.
    public static let maximumLifetime: TimeInterval = 24 * 3600
    /// The most choices a number approval offers: a sign-in screen shows a handful, never hundreds.
    public static let maximumChoices = 10
    /// The longest a choice may be: what a sign-in screen shows is a short code.
    public static let maximumChoiceLength = 16

    public var provider: Provider
    public var accountId: String
    public var kind: ApprovalKind
    public var numbers: [String]?
    public var title: String
    public var message: String
    public var context: ApprovalContext
    public var requestedAt: Date
    public var expiresAt: Date
    /// The dialect's replay key (ForgeRock `messageId`, privacyIDEA `nonce`, …), unique per provider.
    public var dedupeKey: String
    /// Provider-specific data the responder needs to answer later (JSON, kept in the store with the approval).
    public var answerContext: Data

    public init(provider: Provider, accountId: String, kind: ApprovalKind, numbers: [String]?, title: String,
                message: String, context: ApprovalContext, requestedAt: Date, expiresAt: Date,
                dedupeKey: String, answerContext: Data) {
        self.provider = provider
        self.accountId = accountId
        self.kind = kind
        self.numbers = numbers
        self.title = title
        self.message = message
        self.context = context
        self.requestedAt = requestedAt
        self.expiresAt = expiresAt
        self.dedupeKey = dedupeKey
        self.answerContext = answerContext
    }
}

extension ApprovalDraft {
    /// The draft with its times brought within what the agent shows and keeps: requested no later than it arrived
    /// (and no more than `maximumLifetime` before), expiring no later than `maximumLifetime` after it arrived.
    public func bounded(receivedAt: Date) -> ApprovalDraft {
        var draft = self
        draft.requestedAt = min(max(requestedAt, receivedAt.addingTimeInterval(-Self.maximumLifetime)), receivedAt)
        draft.expiresAt = min(expiresAt, receivedAt.addingTimeInterval(Self.maximumLifetime))
        return draft
    }

    /// Whether every time in it can be kept and read back (see `WireTime`).
    public var isStorable: Bool {
        WireTime.isRepresentable(requestedAt) && WireTime.isRepresentable(expiresAt)
    }
}

/// How the user answered.
public enum AnswerDecision: Sendable, Equatable {
    case approve(number: String?)
    case deny(reason: DenyReason?)
}
