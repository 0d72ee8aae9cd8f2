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
                "totp": uri.totp.map(Self.describe) ?? "no",
            ]
            summary["user_id"] = uri.userId
            return summary
        case .privacyIDEA(let uri):
            return [
                "provider": "privacyIDEA", "issuer": uri.issuer, "account": uri.label, "serial": uri.serial,
                "registration_url": uri.registrationURL, "enrollment_window": "\(uri.ttlMinutes) min",
                "transport": uri.pollOnly ? "polling (poll only)" : "push through the relay",
                "tls_verification": uri.sslVerify ? "on" : "OFF (the QR code says sslverify=0)",
            ]
        case .plusAuth(let uri):
            return ["provider": "PlusAuth", "issuer": uri.issuer, "account": uri.accountName,
                    "enrollment_url": uri.enrollmentURL, "totp": Self.describe(uri.totp)]
        case .hyphen(let uri):
            return uri.summary
        }
    }

    private static func describe(_ totp: TOTPParameters) -> String {
        "\(totp.digits) digits every \(totp.period) s (\(totp.algorithm.rawValue.uppercased()))"
    }
}
