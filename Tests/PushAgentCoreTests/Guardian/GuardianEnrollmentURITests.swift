import Foundation
import Testing
@testable import PushAgentCore

@Suite struct GuardianEnrollmentURITests {
    typealias V = GuardianVectors
    static let secret = "JBSWY3DPEHPK3PXP"

    /// GU-URI-1 with a base32 secret in place of its `superSecret`.
    static var jsURIWithSecret: String { V.jsURI.replacingOccurrences(of: "secret=superSecret", with: "secret=\(secret)") }

    /// `jsURIWithSecret` with one parameter replaced (or removed, with `nil`).
    static func sample(_ name: String, _ value: String?) -> String {
        let parts = jsURIWithSecret.split(separator: "?")
        var items = parts[1].split(separator: "&").map(String.init).filter { !$0.hasPrefix(name + "=") }
        if let value { items.append("\(name)=\(value)") }
        return "\(parts[0])?\(items.joined(separator: "&"))"
    }

    @Test func readsTheGuardianJSURI() throws {
        let uri = try GuardianEnrollmentURI.parse(Self.jsURIWithSecret)
        #expect(uri.issuer == "issuer name" && uri.accountName == "myuser@gmail.com")
        #expect(uri.enrollmentTransactionId == "aa1 234")
        #expect(uri.enrollmentId == "1234")
        #expect(uri.baseURL == "https://a.guardian.auth0.com")
        #expect(uri.apiBaseURL == "https://a.guardian.auth0.com", "an Auth0 Guardian host takes no /appliance-mfa")
        #expect(uri.totp == (try TOTPParameters(secret: Base32.decode(Self.secret)!, algorithm: .sha1, digits: 6, period: 30)))
    }

    @Test func theLiteralSecretIsNotBase32() {
        expectError("otpauth://totp URI: parameter 'secret' (OATH secret) is not valid base32") {
            try GuardianEnrollmentURI.parse(V.jsURI)
        }
    }

    @Test func summaryNamesNoSecret() throws {
        let summary = try EnrollmentURI.parse(Self.jsURIWithSecret).summary
        #expect(summary == [
            "provider": "Auth0 Guardian", "issuer": "issuer name", "account": "myuser@gmail.com",
            "base_url": "https://a.guardian.auth0.com", "enrollment_url": "https://a.guardian.auth0.com/api/enroll",
            "totp": "6 digits every 30 s (SHA1)",
        ])
        #expect(!summary.values.contains { $0.contains("aa1 234") || $0.contains(Self.secret) })
    }

    @Test func aPlainTOTPURIIsNotGuardian() throws {
        expectError("otpauth://totp is a one-time-password URI, not a push enrollment") {
            try EnrollmentURI.parse(V.jsPlainTOTP)
        }
        expectError("otpauth://totp is a one-time-password URI, not a push enrollment") {
            try GuardianEnrollmentURI.parse(V.jsPlainTOTP)
        }
        #expect(try EnrollmentURI.parse(Self.sample("secret", nil)).provider == .guardian)
        #expect(try EnrollmentURI.parse(Self.sample("secret", nil)).summary["provider"] == "Auth0 Guardian")
    }

    @Test func withoutASecretThereAreNoCodes() throws {
        let uri = try GuardianEnrollmentURI.parse(Self.sample("secret", nil))
        #expect(uri.totp == nil)
        #expect(uri.summary["totp"] == "no")
    }

    @Test func customDomainsGetApplianceMFA() throws {
        let uri = try GuardianEnrollmentURI.parse(Self.sample("base_url", "https%3A%2F%2Flogin.example.com%2F"))
        #expect(uri.apiBaseURL == "https://login.example.com/appliance-mfa")
        #expect(uri.summary["enrollment_url"] == "https://login.example.com/appliance-mfa/api/enroll")
    }

    @Test func rendersWhatItParses() throws {
        let uri = GuardianEnrollmentURI(
            issuer: "Acme", accountName: "bob@example.com", enrollmentTransactionId: "tx-_.~+/=", baseURL: "https://acme.eu.auth0.com/appliance-mfa",
            enrollmentId: "dev_1", totp: try TOTPParameters(secret: Data((1...20).map { UInt8($0) }), algorithm: .sha256, digits: 8, period: 45))
        #expect(try GuardianEnrollmentURI.parse(uri.uriString) == uri)
    }

    @Test(arguments: [
        (sample("enrollment_tx_id", nil), "otpauth://totp URI: parameter 'enrollment_tx_id' (enrollment ticket) is missing"),
        (sample("enrollment_tx_id", "a%22b"), "otpauth://totp URI: parameter 'enrollment_tx_id' (enrollment ticket) must be at most 2048 printable ASCII characters without quotes"),
        (sample("enrollment_tx_id", String(repeating: "t", count: 2049)), "otpauth://totp URI: parameter 'enrollment_tx_id' (enrollment ticket) must be at most 2048 printable ASCII characters without quotes"),
        (sample("base_url", nil), "otpauth://totp URI: parameter 'base_url' (Guardian service URL) is missing"),
        (sample("base_url", "javascript:alert(1)"), "otpauth://totp URI: parameter 'base_url' (Guardian service URL) must be an http(s) URL, not 'javascript:alert(1)'"),
        (sample("base_url", "a.guardian.auth0.com"), "otpauth://totp URI: parameter 'base_url' (Guardian service URL) must be an http(s) URL, not 'a.guardian.auth0.com'"),
        (sample("digits", "10"), "otpauth://totp URI: parameter 'digits' (code length) must be 6, 7 or 8"),
        (sample("algorithm", "MD5"), "otpauth://totp URI: parameter 'algorithm' (OTP algorithm) must be SHA1, SHA256 or SHA512"),
        (jsURIWithSecret + "&base_url=https://x", "otpauth URI: parameter 'base_url' appears more than once"),
    ])
    func brokenGuardianURIsGetClearErrors(_ uri: String, _ message: String) {
        expectError(message) { try GuardianEnrollmentURI.parse(uri) }
    }

    @Test func otherSchemesAreNotGuardian() {
        expectError("'mfauth://' is not a Guardian enrollment URI (expected otpauth://totp)") {
            try GuardianEnrollmentURI.parse("mfauth://totp/a:b?secret=JBSWY3DP")
        }
        expectError("otpauth URI: the type must be 'totp', not 'hotp'") {
            try GuardianEnrollmentURI.parse("otpauth://hotp/a:b?secret=JBSWY3DP&enrollment_tx_id=t&base_url=https://x")
        }
    }
}

@Suite struct GuardianAPIBaseTests {
    @Test(arguments: GuardianVectors.apiBases)
    func theSDKsBaseURLRule(_ baseURL: String, _ apiBase: String) {
        #expect(GuardianAPIBase.resolve(baseURL) == apiBase)
    }

    @Test(arguments: [
        ("https://samples.guardian.auth0.com/", "https://samples.guardian.auth0.com"),
        ("https://login.example.com/appliance-mfa/", "https://login.example.com/appliance-mfa"),
        ("https://login.example.com/tenant/appliance-mfa/x", "https://login.example.com/tenant/appliance-mfa/x"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080/appliance-mfa"),
        ("https://guardian.auth0.com", "https://guardian.auth0.com"),
        ("https://x.guardian.auth0.com.evil.example", "https://x.guardian.auth0.com.evil.example/appliance-mfa"),
    ])
    func trailingSlashesAndLookAlikes(_ baseURL: String, _ apiBase: String) {
        #expect(GuardianAPIBase.resolve(baseURL) == apiBase)
    }

    @Test func notAnHTTPURLHasNoBase() {
        #expect(GuardianAPIBase.resolve("ftp://x") == nil)
        #expect(GuardianAPIBase.resolve("samples.guardian.auth0.com") == nil)
    }
}
