extension Provider {
    public static let privacyidea = Provider(rawValue: "privacyidea")
}

/// privacyIDEA's push token as the registry knows it (protocols.md §4). eduMFA's legacy `push` tokens use the same
/// `otpauth://pipush` QR code, which nothing tells from privacyIDEA's before 3.6: they enroll as privacyIDEA accounts,
/// polled on the schedule because the URI does not say `poll_only` (protocols.md §9).
public enum PrivacyIDEAProvider {
    public static let description = ProviderDescription(
        provider: .privacyidea, displayName: "privacyIDEA",
        enrollmentForms: [EnrollmentForm(scheme: "otpauth", host: "pipush", read: PrivacyIDEAEnrollmentURI.reader(.privacyIDEA)),
                          EnrollmentForm(scheme: "pia", read: PrivacyIDEAEnrollmentURI.reader(.privacyIDEA))],
        claims: PrivacyIDEAPush.claims,
        capabilities: [.numberMatching, .fraudReport, .pollSource, .pushTokenUpdate])
}

extension PrivacyIDEAEnrollmentURI: ProviderEnrollmentURI {
    /// An enrollment form's reading, for a server speaking this dialect.
    static func reader(_ dialect: Dialect) -> @Sendable (EnrollmentURIParts) throws(EnrollmentURIError) -> any ProviderEnrollmentURI {
        { parts throws(EnrollmentURIError) in try PrivacyIDEAEnrollmentURI(parts, dialect: dialect) }
    }

    public var summary: [String: String] {
        [
            "issuer": issuer, "account": label, "serial": serial,
            "registration_url": registrationURL, "enrollment_window": "\(ttlMinutes) min",
            "transport": pollOnly ? "polling (poll only)" : "push through the relay",
            "tls_verification": sslVerify ? "on" : "OFF (the QR code says sslverify=0)",
        ]
    }
}
