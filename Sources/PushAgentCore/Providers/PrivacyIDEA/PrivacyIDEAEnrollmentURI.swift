import Foundation

/// A privacyIDEA push token QR code (protocols.md §4.1): `otpauth://pipush/<label>?url=…&ttl=…&issuer=…
/// &enrollment_credential=…&v=1&serial=…&sslverify=0|1&poll_only=True|False`, or the same under `pia://pipush/`.
public struct PrivacyIDEAEnrollmentURI: Sendable, Equatable {
    /// `otpauth` or `pia`.
    public var scheme = "otpauth"
    public var label: String
    public var issuer: String
    public var serial: String
    /// `url`: where step 2 is posted, polls are sent and (unless a challenge names another) answers go.
    public var registrationURL: String
    /// `ttl`: how long, in minutes, the server waits for step 2.
    public var ttlMinutes: Int
    /// Proves to the server that this device read the QR code; sent once in step 2.
    public var enrollmentCredential: String
    /// `sslverify=0` asks the device not to verify the server's TLS certificate.
    public var sslVerify: Bool
    /// The server sends no pushes for this token: the device must poll for challenges.
    public var pollOnly: Bool
    /// `poll_only` was written (privacyIDEA always does; eduMFA never does).
    public var saysWhetherPollOnly = true
    public var image: String?

    public static let schemes: Set<String> = ["otpauth", "pia"]

    public static func parse(_ uri: String) throws(EnrollmentURIError) -> PrivacyIDEAEnrollmentURI {
        try PrivacyIDEAEnrollmentURI(EnrollmentURIParts(uri))
    }

    /// How long after reading the QR code step 2 may still be sent.
    public var enrollmentWindow: TimeInterval { TimeInterval(ttlMinutes) * 60 }

    /// The URI forms of a server speaking this dialect, and what its QR codes leave out.
    public struct Dialect: Sendable {
        public let name: String
        public let schemes: Set<String>
        public let host: String
        public let defaultIssuer: String

        public static let privacyIDEA = Dialect(name: "privacyIDEA", schemes: PrivacyIDEAEnrollmentURI.schemes,
                                                host: "pipush", defaultIssuer: "privacyIDEA")
    }

    init(_ parts: EnrollmentURIParts, dialect: Dialect = .privacyIDEA) throws(EnrollmentURIError) {
        guard dialect.schemes.contains(parts.scheme) else {
            throw .wrongProvider(provider: dialect.name, scheme: parts.scheme,
                                 expected: dialect.schemes.sorted().map { "\($0)://\(dialect.host)" }.joined(separator: " or "))
        }
        guard parts.host == dialect.host else {
            throw .badHost(scheme: parts.scheme, host: parts.host, expected: "'\(dialect.host)'")
        }
        scheme = parts.scheme
        let p = EnrollmentParameters(scheme: parts.scheme, query: parts.query)

        // The app refuses every other version: a new one would change the crypto (the server's "allows to upgrade").
        let version = try p.required("v", "protocol version")
        guard version == "1" else {
            throw p.invalid("v", "protocol version", "must be 1, not '\(EnrollmentURIError.excerpt(version))': this agent speaks version 1 only")
        }
        serial = try p.required("serial", "token serial")
        guard serial.utf8.count <= 64, serial.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "|" }) else {
            throw p.invalid("serial", "token serial", "must be up to 64 printable ASCII characters without '|'")
        }
        label = parts.label.isEmpty ? serial : parts.label
        issuer = p.optional("issuer") ?? dialect.defaultIssuer
        // privacyIDEA writes the URL percent-encoded, not in base64 as ForgeRock does.
        registrationURL = try p.checkedHTTPURL(p.required("url", "registration URL"), "url", "registration URL")
        ttlMinutes = try p.integer("ttl", "enrollment time limit in minutes", default: 10)
        guard ttlMinutes > 0 else {
            throw p.invalid("ttl", "enrollment time limit in minutes", "must be at least 1: the enrollment window is already over")
        }
        enrollmentCredential = try p.required("enrollment_credential", "enrollment credential")
        sslVerify = try p.flag("sslverify", "TLS certificate check", true: ["1"], false: ["0"], default: true)
        saysWhetherPollOnly = p.optional("poll_only") != nil
        pollOnly = try p.flag("poll_only", "poll-only mode", true: ["true", "1"], false: ["false", "0"], default: false)
        image = p.optional("image")
    }
}

extension EnrollmentParameters {
    /// A boolean parameter; the accepted spellings are compared case-insensitively.
    func flag(_ name: String, _ meaning: String, true yes: Set<String>, false no: Set<String>,
              default value: Bool) throws(EnrollmentURIError) -> Bool {
        guard let text = optional(name)?.lowercased() else { return value }
        if yes.contains(text) { return true }
        if no.contains(text) { return false }
        throw invalid(name, meaning, "must be one of \((yes.union(no)).sorted().joined(separator: ", "))")
    }
}
