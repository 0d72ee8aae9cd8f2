extension Provider {
    public static let guardian = Provider(rawValue: "guardian")
}

/// Auth0 Guardian as the registry knows it (protocols.md §10). Its pushes are not signed: the account they name
/// and the transaction's one-time answer are what the agent checks.
public enum GuardianProvider {
    public static let description = ProviderDescription(
        provider: .guardian, displayName: "Auth0 Guardian",
        enrollmentForms: [EnrollmentForm(scheme: "otpauth", host: "totp",
                                         distinguishingParameters: GuardianEnrollmentURI.distinguishingParameters,
                                         read: GuardianEnrollmentURI.init)],
        claims: GuardianPush.claims,
        capabilities: [.pushTokenUpdate, .totp])
}

extension GuardianEnrollmentURI: ProviderEnrollmentURI {
    public var offlineCodes: TOTPParameters? { totp }
}
