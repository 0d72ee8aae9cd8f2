/// A parsed enrollment URI of any provider; `parse` asks the registry which provider reads it.
public struct EnrollmentURI: Sendable, Equatable {
    public let provider: Provider
    /// The provider's own reading of it; its module takes it back with `details(as:)`.
    public let details: any ProviderEnrollmentURI

    public static func parse(_ uri: String) throws(EnrollmentURIError) -> EnrollmentURI {
        let parts = try EnrollmentURIParts(uri)
        if let (provider, form) = ProviderRegistry.enrollmentForm(for: parts) {
            return EnrollmentURI(provider: provider.provider, details: try form.read(parts))
        }
        if parts.scheme == "otpauth" { throw .notPushEnrollment("otpauth://\(parts.host)") }
        throw .unknownScheme(parts.scheme)
    }

    public func details<URI: ProviderEnrollmentURI>(as type: URI.Type) -> URI? { details as? URI }

    /// What enrolling would set up, for people to check before they do it (`pushctl enroll --dry-run`).
    /// Never includes a secret, challenge or cookie.
    public var summary: [String: String] {
        details.summary.merging(["provider": provider.displayName]) { _, name in name }
    }

    public static func == (lhs: EnrollmentURI, rhs: EnrollmentURI) -> Bool {
        lhs.provider == rhs.provider && lhs.details.isEqual(to: rhs.details)
    }
}

/// A provider's parsed enrollment URI.
public protocol ProviderEnrollmentURI: Sendable {
    /// What enrolling would set up (issuer, account, endpoints); never a secret. `provider` is added by EnrollmentURI.
    var summary: [String: String] { get }

    /// The TOTP codes the account also shows offline, when the URI carries them.
    var offlineCodes: TOTPParameters? { get }

    func isEqual(to other: any ProviderEnrollmentURI) -> Bool
}

extension ProviderEnrollmentURI {
    public var offlineCodes: TOTPParameters? { nil }
}

extension ProviderEnrollmentURI where Self: Equatable {
    public func isEqual(to other: any ProviderEnrollmentURI) -> Bool { (other as? Self) == self }
}

extension TOTPParameters {
    /// For enrollment summaries: "6 digits every 30 s (SHA1)"; never the secret.
    public var summary: String { "\(digits) digits every \(period) s (\(algorithm.rawValue.uppercased()))" }
}
