extension Provider {
    public static let edumfa = Provider(rawValue: "edumfa")
}

/// eduMFA, privacyIDEA's fork (protocols.md §9): privacyIDEA's push dialect under its own name, for its `edupush`
/// tokens (`edumfa-push://edumfa/`). Its legacy `push` tokens' QR codes are privacyIDEA's (PrivacyIDEAProvider).
/// Its challenges carry no capabilities: no presence numbers, no decline reason.
public enum EduMFAProvider {
    public static let description = ProviderDescription(
        provider: .edumfa, displayName: "eduMFA",
        enrollmentForms: [EnrollmentForm(scheme: "edumfa-push", host: "edumfa", read: PrivacyIDEAEnrollmentURI.reader(.eduMFA))],
        // The same pushes as privacyIDEA's: the account's serial tells whose they are (PushRouter.claimants).
        claims: PrivacyIDEAPush.claims,
        capabilities: [.pollSource, .pushTokenUpdate])
}

extension PrivacyIDEAEnrollmentURI.Dialect {
    static let eduMFA = Self(name: "eduMFA", schemes: ["edumfa-push"], host: "edumfa", defaultIssuer: "eduMFA")
}
