import Testing
@testable import PushAgentCore

/// URIs as eduMFA 2.9.5 issued them (`scripts/edumfa-server.sh`, protocols.md §9).
struct EduMFAEnrollmentURITests {
    static let edupush = "edumfa-push://edumfa/EDUP0000845D?url=http%3A//127.0.0.1%3A18931/ttype/edupush&ttl=10&issuer=eduMFA&enrollment_credential=11f2a5ddc920e2cb08d99401b847ab32b08599a6&v=1&serial=EDUP0000845D&sslverify=0"
    static let legacy = "otpauth://pipush/PIPU0000AB5D?url=http%3A//127.0.0.1%3A18931/ttype/push&ttl=10&issuer=eduMFA&enrollment_credential=fd06a894c79a94a80ed3cdd1a1649a9c0ed594dc&v=1&serial=PIPU0000AB5D&sslverify=0"

    @Test func anEdupushTokenIsEduMFAsAndPolledBecauseItsURIDoesNotSay() throws {
        let uri = try EnrollmentURI.parse(Self.edupush)
        #expect(uri.provider == .edumfa && uri.summary["provider"] == "eduMFA")
        let details = try #require(uri.details(as: PrivacyIDEAEnrollmentURI.self))
        #expect(details.serial == "EDUP0000845D" && details.issuer == "eduMFA" && !details.sslVerify)
        #expect(details.registrationURL == "http://127.0.0.1:18931/ttype/edupush")
        #expect(!details.pollOnly && !details.saysWhetherPollOnly)
    }

    @Test func theIssuerDefaultsToEduMFA() throws {
        let uri = try EnrollmentURI.parse(Self.edupush.replacingOccurrences(of: "&issuer=eduMFA", with: ""))
        #expect(uri.details(as: PrivacyIDEAEnrollmentURI.self)?.issuer == "eduMFA")
    }

    /// Nothing in it tells it from a privacyIDEA token's before 3.6: read as privacyIDEA's, polled all the same.
    @Test func aLegacyPushTokenReadsAsPrivacyIDEAsAndIsPolled() throws {
        let uri = try EnrollmentURI.parse(Self.legacy)
        #expect(uri.provider == .privacyidea)
        #expect(uri.details(as: PrivacyIDEAEnrollmentURI.self)?.saysWhetherPollOnly == false)
        let written = try EnrollmentURI.parse(Self.legacy + "&poll_only=False")
        #expect(written.details(as: PrivacyIDEAEnrollmentURI.self)?.saysWhetherPollOnly == true)
    }

    @Test func anotherHostIsRefusedNamingEduMFAsForm() {
        #expect(throws: EnrollmentURIError.self) { try EnrollmentURI.parse("edumfa-push://pipush/X?v=1") }
    }

    /// Whoever has the account takes a push both dialects claim; the registry's order says who is asked first.
    @Test func bothClaimPrivacyIDEAsPushesPrivacyIDEAFirst() {
        let data = ["nonce": "n", "serial": "EDUP1", "signature": "S", "title": "eduMFA"]
        #expect(PushRouter.claimants(data) == [.privacyidea, .edumfa])
    }
}
