/// What a verified push does: ask the user about a sign-in, or move a request this device made.
public enum PushEffect: Sendable, Equatable {
    case approval(ApprovalDraft)
    case requestUpdate(TwoFactorRequestUpdate)
}
