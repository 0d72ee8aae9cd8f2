import Foundation
import Testing
import PushAgentCore

@Suite struct EnrollmentURITests {
    @Test func recognizesForgeRockSchemes() throws {
        guard case .forgeRock(let push) = try EnrollmentURI.parse(FRVectors.uri1) else { Issue.record(); return }
        #expect(push.mechanism == .push)
        guard case .forgeRock(let combined) = try EnrollmentURI.parse(FRVectors.uri2) else { Issue.record(); return }
        #expect(combined.mechanism == .totp)
        #expect(try EnrollmentURI.parse(FRVectors.uri1).provider == .forgerock)
    }

    @Test func otherProvidersAreNotSupportedYet() {
        let plusAuth = "otpauth://push/MyApp:john@doe.com?issuer=MyApp&secret=SOMESECRET&context_token=T&enrollment_url=https%3A%2F%2Fx"
        #expect(throws: EnrollmentURIError.unsupported(provider: "PlusAuth", form: "otpauth://push")) {
            try EnrollmentURI.parse(plusAuth)
        }
        #expect(throws: EnrollmentURIError.unsupported(provider: "privacyIDEA", form: "otpauth://pipush")) {
            try EnrollmentURI.parse("otpauth://pipush/PIPU0000D79E?url=https%3A//1.2.3.4/ttype/push&ttl=10&v=1")
        }
        #expect(throws: EnrollmentURIError.unsupported(provider: "privacyIDEA", form: "pia://pipush")) {
            try EnrollmentURI.parse("pia://pipush/test-user?url=https%3A%2F%2Fexample.com%2Fttype%2Fpush&v=1")
        }
    }

    @Test func describesWhatIsWrong() {
        let cases: [(String, String)] = [
            ("", "the enrollment URI is empty"),
            ("   \n", "the enrollment URI is empty"),
            ("hello world", "this is not an enrollment URI (expected something like pushauth://push/Issuer:account?…)"),
            ("https://example.com/x", "unknown enrollment URI scheme 'https://' (known: pushauth://, mfauth://, hyphen://, otpauth://push, otpauth://pipush, pia://)"),
            ("otpauth://totp/Acme:bob?secret=JBSWY3DPEHPK3PXP", "otpauth://totp is a one-time-password URI, not a push enrollment"),
            ("otpauth://push/a:b", "PlusAuth enrollment (otpauth://push) is not supported yet"),
        ]
        for (uri, message) in cases {
            expectError(message) { try EnrollmentURI.parse(uri) }
        }
    }

    @Test func hugeInputIsRefusedBeforeParsing() {
        let huge = FRVectors.uri1 + "&x=" + String(repeating: "A", count: 1_000_000)
        #expect(throws: EnrollmentURIError.tooLong(bytes: huge.utf8.count)) { try EnrollmentURI.parse(huge) }
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
