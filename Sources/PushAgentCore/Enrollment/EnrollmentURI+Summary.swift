extension EnrollmentURI {
    /// What enrolling would set up, for people to check before they do it (`pushctl enroll --dry-run`).
    /// Never includes a secret, challenge or cookie.
    public var summary: [String: String] {
        switch self {
        case .forgeRock(let uri):
            var summary = [
                "provider": "ForgeRock", "issuer": uri.issuer, "account": uri.accountName,
                "mechanism": uri.mechanism.rawValue, "registration_url": uri.registrationURL,
                "authentication_url": uri.authenticationURL,
                "totp": uri.totp.map { "\($0.digits) digits every \($0.period) s (\($0.algorithm.rawValue.uppercased()))" } ?? "no",
            ]
            summary["user_id"] = uri.userId
            return summary
        case .hyphen(let uri):
            return uri.summary
        }
    }
}
