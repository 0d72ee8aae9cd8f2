extension Provider {
    public static let forgerock = Provider(rawValue: "forgerock")
}

/// ForgeRock / PingAM push as the registry knows it (protocols.md §1).
public enum ForgeRockProvider {
    public static let description = ProviderDescription(
        provider: .forgerock, displayName: "ForgeRock",
        enrollmentForms: ["pushauth", "mfauth"].map { EnrollmentForm(scheme: $0, read: ForgeRockEnrollmentURI.init) },
        claims: ForgeRockPush.claims,
        capabilities: [.numberMatching, .userVerification, .pushTokenUpdate, .totp])
}

extension ForgeRockEnrollmentURI: ProviderEnrollmentURI {
    public var offlineCodes: TOTPParameters? { totp }

    public var summary: [String: String] {
        var summary = [
            "issuer": issuer, "account": accountName, "mechanism": mechanism.rawValue,
            "registration_url": registrationURL, "authentication_url": authenticationURL,
            "totp": totp?.summary ?? "no",
        ]
        summary["user_id"] = userId
        return summary
    }
}
