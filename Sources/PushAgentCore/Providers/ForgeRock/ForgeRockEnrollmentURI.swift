import Foundation

/// A ForgeRock/PingAM registration QR code (protocols.md §1.1): `pushauth://push/Issuer:account?…`, or the combined
/// `mfauth://totp|hotp/Issuer:account?…` that carries the same push parameters plus OATH ones.
public struct ForgeRockEnrollmentURI: Sendable, Equatable {
    public enum Mechanism: String, Sendable, Equatable {
        /// `pushauth://push`: push only.
        case push
        /// `mfauth://totp`: push plus TOTP codes (`totp` is set).
        case totp
        /// `mfauth://hotp`: push plus counter-based codes, which the agent does not generate (`totp` is nil).
        case hotp
    }

    public var mechanism: Mechanism
    public var issuer: String
    public var accountName: String
    /// Decoded `r`: where the registration is posted.
    public var registrationURL: String
    /// Decoded `a`: where answers are posted.
    public var authenticationURL: String
    /// Decoded `s`: the HMAC key of every JWT exchanged with this account (at least 32 bytes).
    public var sharedSecret: Data
    /// Decoded `c`: signed back in the registration to prove the device read this QR code.
    public var challenge: Data
    /// Decoded `l`: AM's load-balancer cookie, sent back as `Cookie` so the registration reaches the same server.
    public var cookie: String?
    /// `m`: the id the registration answers.
    public var registrationMessageId: String
    public var image: String?
    /// `b` with the `#` apps show it with, e.g. `#519387`.
    public var backgroundColor: String?
    /// Decoded `policies`: JSON the device is meant to evaluate (kept for display; not enforced here).
    public var policies: String?
    /// Decoded `uid`.
    public var userId: String?
    /// Decoded `pid`.
    public var pushResourceId: String?
    public var totp: TOTPParameters?

    public init(mechanism: Mechanism = .push, issuer: String, accountName: String, registrationURL: String,
                authenticationURL: String, sharedSecret: Data, challenge: Data, cookie: String?,
                registrationMessageId: String, image: String? = nil, backgroundColor: String? = nil,
                policies: String? = nil, userId: String? = nil, pushResourceId: String? = nil,
                totp: TOTPParameters? = nil) {
        self.mechanism = mechanism
        self.issuer = issuer
        self.accountName = accountName
        self.registrationURL = registrationURL
        self.authenticationURL = authenticationURL
        self.sharedSecret = sharedSecret
        self.challenge = challenge
        self.cookie = cookie
        self.registrationMessageId = registrationMessageId
        self.image = image
        self.backgroundColor = backgroundColor
        self.policies = policies
        self.userId = userId
        self.pushResourceId = pushResourceId
        self.totp = totp
    }

    public static func parse(_ uri: String) throws(EnrollmentURIError) -> ForgeRockEnrollmentURI {
        try ForgeRockEnrollmentURI(EnrollmentURIParts(uri))
    }

    init(_ parts: EnrollmentURIParts) throws(EnrollmentURIError) {
        switch (parts.scheme, parts.host) {
        case ("pushauth", "push"): mechanism = .push
        case ("mfauth", "totp"): mechanism = .totp
        case ("mfauth", "hotp"): mechanism = .hotp
        case ("pushauth", let host): throw .badHost(scheme: "pushauth", host: host, expected: "'push'")
        case ("mfauth", let host): throw .badHost(scheme: "mfauth", host: host, expected: "'totp' or 'hotp'")
        case (let scheme, _):
            throw .wrongProvider(provider: "ForgeRock", scheme: scheme, expected: "pushauth:// or mfauth://")
        }
        let p = EnrollmentParameters(scheme: parts.scheme, query: parts.query)

        if let version = p.optional("version"), version != "1" {
            throw p.invalid("version", "URI version", "must be 1, not '\(EnrollmentURIError.excerpt(version))'")
        }
        (issuer, accountName) = try p.identity(label: parts.label, issuer: p.base64TextOrPlain("issuer"))
        registrationURL = try p.httpURL("r", "registration endpoint")
        authenticationURL = try p.httpURL("a", "authentication endpoint")
        sharedSecret = try p.requiredBase64("s", "shared secret")
        guard sharedSecret.count >= HS256.minimumKeyBytes else {
            throw p.invalid("s", "shared secret",
                            "is too short: the shared secret must be at least 256 bits (it has \(sharedSecret.count * 8))")
        }
        challenge = try p.requiredBase64("c", "registration challenge")
        cookie = try p.optional("l").map { value throws(EnrollmentURIError) in
            try p.base64Text(value, "l", "load-balancer cookie")
        }
        registrationMessageId = try p.required("m", "registration message id")
        // pushauth encodes the logo URL in base64; mfauth writes it plainly (FR-URI-2).
        image = mechanism == .push ? p.base64TextOrPlain("image") : p.optional("image")
        backgroundColor = p.optional("b").map { $0.hasPrefix("#") ? $0 : "#" + $0 }
        policies = p.base64TextOrPlain("policies")
        userId = p.base64TextOrPlain("uid")
        pushResourceId = p.base64TextOrPlain("pid")
        totp = try Self.oath(mechanism: mechanism, parameters: p)
    }

    private static func oath(mechanism: Mechanism, parameters p: EnrollmentParameters) throws(EnrollmentURIError)
        -> TOTPParameters? {
        guard mechanism != .push else { return nil }
        let secret = try p.oathSecret()
        return mechanism == .totp ? try p.totp(secret: secret) : nil
    }
}
