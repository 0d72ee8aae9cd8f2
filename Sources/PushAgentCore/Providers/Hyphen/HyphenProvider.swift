extension Provider {
    public static let hyphen = Provider(rawValue: "hyphen")
}

/// Hyphen as the registry knows it (protocols.md §3); its enrollment URI is our own (§3.6).
public enum HyphenProvider {
    public static let description = ProviderDescription(
        provider: .hyphen, displayName: "Hyphen",
        enrollmentForms: [EnrollmentForm(scheme: "hyphen", read: HyphenEnrollmentURI.init)],
        claims: HyphenPush.claims,
        capabilities: [],
        nextStep: { account in
            "sign this device in with `pushctl hyphen signin --account \(account) --credential -` (the token from your Hyphen app on stdin)"
        })
}

extension HyphenEnrollmentURI: ProviderEnrollmentURI {}
