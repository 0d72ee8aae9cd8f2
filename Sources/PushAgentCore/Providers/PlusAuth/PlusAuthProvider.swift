extension Provider {
    public static let plusauth = Provider(rawValue: "plusauth")
}

/// PlusAuth's push authenticator as the registry knows it (protocols.md §2).
public enum PlusAuthProvider {
    public static let description = ProviderDescription(
        provider: .plusauth, displayName: "PlusAuth",
        enrollmentForms: [EnrollmentForm(scheme: "otpauth", host: "push", read: PlusAuthEnrollmentURI.init)],
        claims: PlusAuthPush.claims,
        capabilities: [.numberMatching, .fraudReport, .totp])
}

extension PlusAuthEnrollmentURI: ProviderEnrollmentURI {
    public var offlineCodes: TOTPParameters? { totp }

    public var summary: [String: String] {
        ["issuer": issuer, "account": accountName, "enrollment_url": enrollmentURL, "totp": totp.summary]
    }
}
