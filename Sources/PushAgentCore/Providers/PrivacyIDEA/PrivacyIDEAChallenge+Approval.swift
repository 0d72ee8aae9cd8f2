import Foundation

extension PrivacyIDEAChallenge {
    /// The normalized approval: a presence challenge asks for the option shown at sign-in, anything else is a prompt.
    /// `provider` is the account's: a fork speaking this dialect (eduMFA) is a provider of its own.
    public func approvalDraft(provider: Provider, accountId: String, accountName: String) throws
        -> ApprovalDraft {
        ApprovalDraft(
            provider: provider, accountId: accountId, kind: presenceOptions == nil ? .prompt : .number,
            numbers: presenceOptions, title: title, message: question,
            context: ApprovalContext(user: accountName, raw: .object(["serial": .string(serial), "url": .string(url)])),
            requestedAt: receivedAt, expiresAt: expiresAt, dedupeKey: nonce, answerContext: try answerContext())
    }
}
