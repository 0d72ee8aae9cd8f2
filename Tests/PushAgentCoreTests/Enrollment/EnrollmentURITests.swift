import Foundation
import Testing
@testable import PushAgentCore

@Suite struct EnrollmentURITests {
    @Test func recognizesForgeRockSchemes() throws {
        guard let push = try EnrollmentURI.parse(FRVectors.uri1).details(as: ForgeRockEnrollmentURI.self) else { Issue.record(); return }
        #expect(push.mechanism == .push)
        guard let combined = try EnrollmentURI.parse(FRVectors.uri2).details(as: ForgeRockEnrollmentURI.self) else { Issue.record(); return }
        #expect(combined.mechanism == .totp)
        #expect(try EnrollmentURI.parse(FRVectors.uri1).provider == .forgerock)
    }

    @Test func describesWhatIsWrong() {
        let cases: [(String, String)] = [
            ("", "the enrollment URI is empty"),
            ("   \n", "the enrollment URI is empty"),
            ("hello world", "this is not an enrollment URI (expected something like pushauth://push/Issuer:account?…)"),
            ("https://example.com/x", "unknown enrollment URI scheme 'https://' (known: hyphen://, pushauth://, mfauth://, otpauth://push, otpauth://pipush, pia://, edumfa-push://edumfa, otpauth://totp with enrollment_tx_id)"),
            ("otpauth://totp/Acme:bob?secret=JBSWY3DPEHPK3PXP", "otpauth://totp is a one-time-password URI, not a push enrollment"),
            ("otpauth://push/a:b", "otpauth://push URI: parameter 'secret' (OATH secret) is missing"),
        ]
        for (uri, message) in cases {
            expectError(message) { try EnrollmentURI.parse(uri) }
        }
    }

    @Test func hugeInputIsRefusedBeforeParsing() {
        let huge = FRVectors.uri1 + "&x=" + String(repeating: "A", count: 1_000_000)
        #expect(throws: EnrollmentURIError.tooLong(bytes: huge.utf8.count)) { try EnrollmentURI.parse(huge) }
    }

    /// Read by `Character`, `&\u{301}` was no separator: the issuer read as `Rm9yZ2VSb2Nr&\u{301}x=1`, not base64 any
    /// more, so shown as that text. Split by Unicode scalars, as URI readers elsewhere do (Python's
    /// `urllib.parse.parse_qsl` reads `issuer` and `\u{301}x` apart).
    @Test func aCombiningMarkAfterASeparatorStillSplits() throws {
        guard let push = try EnrollmentURI.parse(FRVectors.uri1 + "&\u{301}x=1").details(as: ForgeRockEnrollmentURI.self) else {
            Issue.record(); return
        }
        #expect(push.issuer == "ForgeRock")
        #expect(throws: EnrollmentURIError.notAURI) { try EnrollmentURI.parse("pushauth:/\u{301}/push/a:b?s=x") }
        let parts = try EnrollmentURIParts("scheme://host\u{600}/Issuer\u{600}:\u{301}acct?\u{301}a=\u{301}1&b\u{600}=2#\u{301}")
        #expect(parts.host == "host\u{600}" && parts.label == "Issuer\u{600}:\u{301}acct")
        #expect(parts.query == ["\u{301}a": "\u{301}1", "b\u{600}": "2"])
        #expect(EnrollmentURIParts.splitAtFirstColon(parts.label).map { [$0.before, $0.after] } == ["Issuer\u{600}", "\u{301}acct"])
        // The label too: by `Character`, `\u{600}:` was no colon, and Hyphen refused the label.
        guard let hyphen = try EnrollmentURI.parse("hyphen://account/Swirl\u{600}:j@acme.com?secret=s&chain=flow-mainnet").details(as: HyphenEnrollmentURI.self)
        else { Issue.record(); return }
        #expect(hyphen.appName == "Swirl\u{600}" && hyphen.email == "j@acme.com")
    }

    @Test func surroundingWhitespaceFromQRReadersIsIgnored() throws {
        #expect(try EnrollmentURI.parse("  \(FRVectors.uri1)\n") == EnrollmentURI.parse(FRVectors.uri1))
    }
}

@Suite struct EnrollmentSummaryTests {
    @Test func showsWhatWouldBeEnrolledButNoSecret() throws {
        let summary = try EnrollmentURI.parse(FRVectors.uri2).summary
        #expect(summary["provider"] == "ForgeRock" && summary["issuer"] == "ForgeRock" && summary["account"] == "demo")
        #expect(summary["registration_url"] == "https://forgerock.example.com/openam/json/push/sns/message?_action=register")
        #expect(summary["totp"] == "6 digits every 30 s (SHA1)")
        let everything = summary.values.joined(separator: " ")
        for secret in ["ryJkqNRjXYd", "Daf8vrc8", "R2PYFZRISXA5", "amlbcookie"] { #expect(!everything.contains(secret)) }
    }
}
