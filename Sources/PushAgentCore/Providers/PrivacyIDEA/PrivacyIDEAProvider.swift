extension Provider {
    public static let privacyidea = Provider(rawValue: "privacyidea")
}

/// privacyIDEA's push token as the registry knows it (protocols.md §4).
public enum PrivacyIDEAProvider {
    public static let description = ProviderDescription(
        provider: .privacyidea, displayName: "privacyIDEA",
        enrollmentForms: [EnrollmentForm(scheme: "otpauth", host: "pipush", read: PrivacyIDEAEnrollmentURI.init),
                          EnrollmentForm(scheme: "pia", read: PrivacyIDEAEnrollmentURI.init)],
        claims: PrivacyIDEAPush.claims,
        capabilities: [.numberMatching, .fraudReport, .pollSource, .pushTokenUpdate])
}

extension PrivacyIDEAEnrollmentURI: ProviderEnrollmentURI {
    public var summary: [String: String] {
        [
            "issuer": issuer, "account": label, "serial": serial,
            "registration_url": registrationURL, "enrollment_window": "\(ttlMinutes) min",
            "transport": pollOnly ? "polling (poll only)" : "push through the relay",
            "tls_verification": sslVerify ? "on" : "OFF (the QR code says sslverify=0)",
        ]
    }
}
