import Foundation

/// A PlusAuth push-authenticator QR code (protocols.md §2.1): an ordinary TOTP Key URI with host `push`, plus the
/// bearer token and the endpoint the device enrolls with.
/// `otpauth://push/MyApp:john@doe.com?issuer=MyApp&secret=…&algorithm=SHA256&digits=6&period=30&context_token=…&enrollment_url=…`
public struct PlusAuthEnrollmentURI: Sendable, Equatable {
    public var issuer: String
    public var accountName: String
    /// The offline codes the account also shows (`pushctl code`).
    public var totp: TOTPParameters
    /// `context_token`: opaque; the `Authorization: Bearer` of the enrollment request.
    public var contextToken: String
    /// `enrollment_url`, percent-decoded.
    public var enrollmentURL: String

    /// Context tokens are opaque, but one longer than this is not something a server minted for a QR code.
    static let maximumTokenLength = 2048

    public init(issuer: String, accountName: String, totp: TOTPParameters, contextToken: String, enrollmentURL: String) {
        self.issuer = issuer
        self.accountName = accountName
        self.totp = totp
        self.contextToken = contextToken
        self.enrollmentURL = enrollmentURL
    }

    public static func parse(_ uri: String) throws(EnrollmentURIError) -> PlusAuthEnrollmentURI {
        try PlusAuthEnrollmentURI(EnrollmentURIParts(uri))
    }

    init(_ parts: EnrollmentURIParts) throws(EnrollmentURIError) {
        guard parts.scheme == "otpauth" else {
            throw .wrongProvider(provider: "PlusAuth", scheme: parts.scheme, expected: "otpauth://push")
        }
        guard parts.host == "push" else { throw .badHost(scheme: "otpauth", host: parts.host, expected: "'push'") }
        let p = EnrollmentParameters(scheme: "otpauth://push", query: parts.query)
        (issuer, accountName) = try p.identity(label: parts.label, issuer: p.optional("issuer"))
        totp = try p.totp(secret: p.oathSecret())
        contextToken = try p.required("context_token", "enrollment bearer token")
        guard contextToken.count <= Self.maximumTokenLength,
              contextToken.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) })
        else {
            throw p.invalid("context_token", "enrollment bearer token",
                            "must be at most \(Self.maximumTokenLength) printable ASCII characters without spaces")
        }
        enrollmentURL = try p.plainHTTPURL("enrollment_url", "enrollment endpoint")
    }

    /// The URI as PlusAuth puts it in its QR code (pushsim issues these).
    public var uriString: String {
        "otpauth://push/" + EnrollmentURIEscaping.label(issuer: issuer, account: accountName) + "?"
            + EnrollmentURIEscaping.query([("issuer", issuer)] + EnrollmentURIEscaping.oathItems(totp)
                + [("context_token", contextToken), ("enrollment_url", enrollmentURL)])
    }
}
