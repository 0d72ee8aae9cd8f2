import Foundation

/// What a dialect's handler makes of a verified push; the store turns it into an `Approval`.
public struct ApprovalDraft: Sendable, Equatable {
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

/// How the user answered.
public enum AnswerDecision: Sendable, Equatable {
    case approve(number: String?)
    case deny(reason: DenyReason?)
}
