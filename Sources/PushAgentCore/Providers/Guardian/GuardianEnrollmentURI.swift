import Foundation

/// An Auth0 Guardian enrollment QR code (protocols.md §10.1): a TOTP Key URI that also carries the
/// enrollment ticket and the Guardian service URL.
/// `otpauth://totp/Tenant:user?secret=…&enrollment_tx_id=…&issuer=Tenant&id=dev_…&base_url=https%3A%2F%2F…`
/// `&algorithm=sha1&digits=6&counter=0&period=30`
public struct GuardianEnrollmentURI: Sendable, Equatable {
    public var issuer: String
    public var accountName: String
    /// `enrollment_tx_id`: the one-time ticket of `Authorization: Ticket id="…"`; a credential, never shown.
    public var enrollmentTransactionId: String
    /// `base_url` as the QR code gives it.
    public var baseURL: String
    /// `id`: the device account the enrollment will complete, when the QR code names it.
    public var enrollmentId: String?
    /// The offline codes; nil when the QR code carries no `secret` (the enrollment reply may still bring them).
    public var totp: TOTPParameters?

    /// Tickets are opaque, but one longer than this is not something a server minted for a QR code.
    static let maximumTicketLength = 2048

    public init(issuer: String, accountName: String, enrollmentTransactionId: String, baseURL: String,
                enrollmentId: String? = nil, totp: TOTPParameters?) {
        self.issuer = issuer
        self.accountName = accountName
        self.enrollmentTransactionId = enrollmentTransactionId
        self.baseURL = baseURL
        self.enrollmentId = enrollmentId
        self.totp = totp
    }

    public static func parse(_ uri: String) throws(EnrollmentURIError) -> GuardianEnrollmentURI {
        try GuardianEnrollmentURI(EnrollmentURIParts(uri))
    }

    /// What tells a Guardian QR code from a plain TOTP one (same scheme and host). One of the two is enough to claim
    /// it, so a QR code missing the other gets an error naming it instead of "not a push enrollment".
    static let distinguishingParameters = ["enrollment_tx_id", "base_url"]

    init(_ parts: EnrollmentURIParts) throws(EnrollmentURIError) {
        guard parts.scheme == "otpauth" else {
            throw .wrongProvider(provider: "Guardian", scheme: parts.scheme, expected: "otpauth://totp")
        }
        guard parts.host == "totp" else { throw .badHost(scheme: "otpauth", host: parts.host, expected: "'totp'") }
        guard Self.distinguishingParameters.contains(where: { parts.query[$0] != nil }) else {
            throw .notPushEnrollment("otpauth://totp")
        }
        let p = EnrollmentParameters(scheme: "otpauth://totp", query: parts.query)
        (issuer, accountName) = try p.identity(label: parts.label, issuer: p.optional("issuer"))
        enrollmentTransactionId = try p.required("enrollment_tx_id", "enrollment ticket")
        guard enrollmentTransactionId.count <= Self.maximumTicketLength,
              // The ticket goes inside a quoted header parameter: no quote, backslash or control character.
              enrollmentTransactionId.unicodeScalars.allSatisfy({
                  (0x20...0x7E).contains($0.value) && $0 != "\"" && $0 != "\\"
              })
        else {
            throw p.invalid("enrollment_tx_id", "enrollment ticket",
                            "must be at most \(Self.maximumTicketLength) printable ASCII characters without quotes")
        }
        baseURL = try p.plainHTTPURL("base_url", "Guardian service URL")
        enrollmentId = p.optional("id")
        totp = try p.optional("secret").map { _ throws(EnrollmentURIError) in try p.totp(secret: p.oathSecret()) }
    }

    /// The device API base the account talks to (`/appliance-mfa` rule, §10.1).
    public var apiBaseURL: String {
        // `init` checked `base_url` with the same rules `resolve` applies.
        GuardianAPIBase.resolve(baseURL) ?? baseURL
    }

    /// What enrolling would set up (`pushctl enroll --dry-run`); never the ticket or the secret.
    public var summary: [String: String] {
        [
            "issuer": issuer, "account": accountName, "base_url": baseURL,
            "enrollment_url": GuardianAPIBase.endpoint(apiBaseURL, "enroll"),
            "totp": totp?.summary ?? "no",
        ]
    }

    /// The URI as Guardian puts it in its QR code (for pushsim and round trips).
    public var uriString: String {
        var items: [(String, String)] = [("enrollment_tx_id", enrollmentTransactionId), ("issuer", issuer)]
        if let enrollmentId { items.append(("id", enrollmentId)) }
        items.append(("base_url", baseURL))
        return "otpauth://totp/" + EnrollmentURIEscaping.label(issuer: issuer, account: accountName) + "?"
            + EnrollmentURIEscaping.query(items + (totp.map(EnrollmentURIEscaping.oathItems) ?? []))
    }
}
