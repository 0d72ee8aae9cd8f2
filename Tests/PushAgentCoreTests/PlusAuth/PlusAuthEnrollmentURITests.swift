import Foundation
import Testing
@testable import PushAgentCore

@Suite struct PlusAuthEnrollmentURITests {
    /// PlusAuth's docs, push-enrollment page (PlusAuth/docs content/en/api/auth-plus/02.push-enrollment.mdoc).
    static let docSample = "otpauth://push/MyApp:john@doe.com?issuer=MyApp&secret=SOMESECRET&algorithm=SHA256&digits=6&period=30&context_token=SOME_TOKEN&enrollment_url=https%3A%2F%2Fmytenant.plusauth.com%2Fpush-authenticator%2Fenroll"

    /// The doc sample with one parameter replaced (or removed, with `nil`).
    static func sample(_ name: String, _ value: String?) -> String {
        let (head, query) = (docSample.split(separator: "?")[0], docSample.split(separator: "?")[1])
        var items = query.split(separator: "&").map(String.init).filter { !$0.hasPrefix(name + "=") }
        if let value { items.append("\(name)=\(value)") }
        return "\(head)?\(items.joined(separator: "&"))"
    }

    @Test func parsesTheDocSample() throws {
        guard let uri = try EnrollmentURI.parse(Self.docSample).details(as: PlusAuthEnrollmentURI.self) else {
            Issue.record("not read as a PlusAuth URI")
            return
        }
        #expect(uri.issuer == "MyApp")
        #expect(uri.accountName == "john@doe.com")
        #expect(uri.contextToken == "SOME_TOKEN")
        #expect(uri.enrollmentURL == "https://mytenant.plusauth.com/push-authenticator/enroll")
        #expect(uri.totp == (try TOTPParameters(secret: Base32.decode("SOMESECRET")!, algorithm: .sha256, digits: 6, period: 30)))
        #expect(try EnrollmentURI.parse(Self.docSample).provider == .plusauth)
        let summary = try EnrollmentURI.parse(Self.docSample).summary
        #expect(summary["totp"] == "6 digits every 30 s (SHA256)")
        #expect(!summary.values.contains { $0.contains("SOME_TOKEN") || $0.contains("SOMESECRET") }, "no secrets in the summary")
    }

    @Test func defaultsAreTheKeyURIFormats() throws {
        let minimal = "otpauth://push/Acme:bob?secret=JBSWY3DPEHPK3PXP&context_token=t&enrollment_url=http://idp:8080/e"
        let uri = try PlusAuthEnrollmentURI.parse(minimal)
        #expect(uri.totp.algorithm == .sha1 && uri.totp.digits == 6 && uri.totp.period == 30)
        #expect(uri.issuer == "Acme" && uri.accountName == "bob")
    }

    @Test func rendersWhatItParses() throws {
        let uri = try PlusAuthEnrollmentURI(
            issuer: "Acme: Corp", accountName: "bob@example.com",
            totp: TOTPParameters(secret: Data((1...20).map { UInt8($0) }), algorithm: .sha512, digits: 8, period: 45),
            contextToken: "abc-_.~+/=", enrollmentURL: "https://idp.example.com:8443/push-authenticator/enroll?x=1&y=2")
        #expect(try PlusAuthEnrollmentURI.parse(uri.uriString) == uri)
    }

    @Test(arguments: [
        (sample("secret", nil), "otpauth://push URI: parameter 'secret' (OATH secret) is missing"),
        (sample("secret", "SOME1SECRET"), "otpauth://push URI: parameter 'secret' (OATH secret) is not valid base32"),
        (sample("secret", "A"), "otpauth://push URI: parameter 'secret' (OATH secret) is not valid base32"),
        (sample("context_token", nil), "otpauth://push URI: parameter 'context_token' (enrollment bearer token) is missing"),
        (sample("context_token", "two%20words"), "otpauth://push URI: parameter 'context_token' (enrollment bearer token) must be at most 2048 printable ASCII characters without spaces"),
        (sample("context_token", String(repeating: "t", count: 2049)), "otpauth://push URI: parameter 'context_token' (enrollment bearer token) must be at most 2048 printable ASCII characters without spaces"),
        (sample("enrollment_url", nil), "otpauth://push URI: parameter 'enrollment_url' (enrollment endpoint) is missing"),
        (sample("enrollment_url", "javascript:alert(1)"), "otpauth://push URI: parameter 'enrollment_url' (enrollment endpoint) must be an http(s) URL, not 'javascript:alert(1)'"),
        (sample("enrollment_url", "%ZZ"), "otpauth URI: parameter 'enrollment_url' has broken percent-encoding"),
        (sample("digits", "99999999999999999999999"), "otpauth://push URI: parameter 'digits' (code length) must be a whole number"),
        (sample("digits", "10"), "otpauth://push URI: parameter 'digits' (code length) must be 6, 7 or 8"),
        (sample("period", "0"), "otpauth://push URI: parameter 'period' (code period) must be 1 to 86400 seconds"),
        (sample("period", "31536000"), "otpauth://push URI: parameter 'period' (code period) must be 1 to 86400 seconds"),
        (sample("algorithm", "MD5"), "otpauth://push URI: parameter 'algorithm' (OTP algorithm) must be SHA1, SHA256 or SHA512"),
        (docSample + "&secret=JBSWY3DP", "otpauth URI: parameter 'secret' appears more than once"),
        ("otpauth://push/?secret=JBSWY3DP&context_token=t&enrollment_url=https://x", "otpauth://push URI: the label (issuer:account) names neither an issuer nor an account"),
    ])
    func hostileURIsGetClearErrors(_ uri: String, _ message: String) {
        expectError(message) { try EnrollmentURI.parse(uri) }
    }

    @Test func hugeURIsAreRefusedBeforeParsing() {
        let huge = Self.sample("secret", String(repeating: "A", count: 100_000))
        expectError("the enrollment URI is \(huge.utf8.count) bytes long; at most 8192 are accepted") {
            try EnrollmentURI.parse(huge)
        }
    }

    @Test func otherSchemesAreNotPlusAuth() {
        expectError("'mfauth://' is not a PlusAuth enrollment URI (expected otpauth://push)") {
            try PlusAuthEnrollmentURI.parse("mfauth://totp/a:b?secret=JBSWY3DP")
        }
        expectError("otpauth URI: the type must be 'push', not 'totp'") {
            try PlusAuthEnrollmentURI.parse("otpauth://totp/a:b?secret=JBSWY3DP")
        }
    }
}
