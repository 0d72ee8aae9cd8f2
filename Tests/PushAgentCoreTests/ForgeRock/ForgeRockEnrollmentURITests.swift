import Foundation
import Testing
import PushAgentCore

@Suite struct ForgeRockEnrollmentURITests {
    // FR-URI-1: forgerock-android-sdk PushParserTest.java
    @Test func frURI1() throws {
        let uri = try ForgeRockEnrollmentURI.parse(FRVectors.uri1)
        #expect(uri.mechanism == .push)
        #expect(uri.accountName == "user")
        #expect(uri.issuer == "ForgeRock")
        #expect(uri.authenticationURL == "http://dev.openam.example.com:8081/openam/json/dev/push/sns/message?_action=authenticate")
        #expect(uri.registrationURL == "http://dev.openam.example.com:8081/openam/json/dev/push/sns/message?_action=register")
        #expect(uri.sharedSecret.standardBase64 == "b3uYLkQ7dRPjBaIzV0t/aijoXRgMq+NP5AwVAvRfa/E=")
        #expect(uri.challenge.standardBase64 == "9giiBAdUHjqpo0XE4YdZ7pRlv0hrQYwDz8Z1wwLLbkg=")
        #expect(uri.cookie == "amlbcookie=01")
        #expect(uri.registrationMessageId == "REGISTER:8be951c6-af83-438d-8f74-421bd18650421570561063169")
        #expect(uri.backgroundColor == "#519387")
        #expect(uri.image == nil && uri.userId == nil && uri.pushResourceId == nil && uri.totp == nil)
    }

    // FR-URI-1 variants in the same PushParserTest.java.
    @Test func frURI1Variants() throws {
        #expect(try ForgeRockEnrollmentURI.parse(FRVectors.uri1 + "&image=aHR0cDovL2Zvcmdlcm9jay5jb20vbG9nby5qcGc").image
                == "http://forgerock.com/logo.jpg")
        #expect(try ForgeRockEnrollmentURI.parse(FRVectors.uri1 + "&uid=dXNlcjM").userId == "user3")
        #expect(try ForgeRockEnrollmentURI.parse(FRVectors.uri1 + "&pid=NTgxZGQzYzgtM2M2OS00OWFjLWIwMWEtMDc0NDUwYjIyNmM1")
            .pushResourceId == "581dd3c8-3c69-49ac-b01a-074450b226c5")
    }

    // PushParserTest.java: `pushauth://hotp/…` with the same query must not yield a push mechanism.
    @Test func pushauthHostMustBePush() {
        let hotp = FRVectors.uri1.replacingOccurrences(of: "pushauth://push/", with: "pushauth://hotp/")
        #expect(throws: EnrollmentURIError.badHost(scheme: "pushauth", host: "hotp", expected: "'push'")) {
            try ForgeRockEnrollmentURI.parse(hotp)
        }
        #expect(throws: EnrollmentURIError.self) { try EnrollmentURI.parse(hotp) }
    }

    // FR-URI-2: PushParserTest.java testShouldParseMfaUri
    @Test func frURI2() throws {
        let uri = try ForgeRockEnrollmentURI.parse(FRVectors.uri2)
        #expect(uri.mechanism == .totp)
        #expect(uri.accountName == "demo")
        #expect(uri.issuer == "ForgeRock")
        #expect(uri.image == "https://img.favpng.com/9/25/24/computer-icons-instagram-logo-sticker-png-favpng-LZmXr3KPyVbr8LkxNML458QV3.jpg")
        #expect(uri.registrationMessageId == "9326d19c-4d08-4538-8151-f8558e71475f1464361288472")
        #expect(uri.cookie == "amlbcookie=01")
        #expect(uri.authenticationURL == "https://forgerock.example.com/openam/json/push/sns/message?_action=authenticate")
        #expect(uri.registrationURL == "https://forgerock.example.com/openam/json/push/sns/message?_action=register")
        #expect(uri.challenge.standardBase64 == "Daf8vrc8onKu+dcptwCRS9UHmdui5u16vAdG2HMU4w0=")
        #expect(uri.sharedSecret.standardBase64 == "ryJkqNRjXYd/nX523672AX/oKdVXrKExq+VjVeRKKTc=")
        #expect(uri.policies == #"{"biometricAvailable": { },"deviceTampering": {"score": 0.8}}"#)
        #expect(uri.backgroundColor == "#ff00ff")
        let totp = try #require(uri.totp)
        #expect(totp.secret == Base32.decode("R2PYFZRISXA5L25NVSSYK2RQ6E"))
        #expect(totp.digits == 6 && totp.period == 30 && totp.algorithm == .sha1)
    }

    @Test func hotpRecordsTheTypeWithoutTOTP() throws {
        let uri = try ForgeRockEnrollmentURI.parse(FRVectors.uri2.replacingOccurrences(of: "mfauth://totp/", with: "mfauth://hotp/"))
        #expect(uri.mechanism == .hotp)
        #expect(uri.totp == nil)
    }

    // FR-HMAC-1's upstream test also refuses the 10-byte secret "testsecret" (Nimbus: "at least 256 bits").
    @Test func shortSecretIsRefused() {
        let short = FRVectors.uri1.replacingOccurrences(of: "s=b3uYLkQ7dRPjBaIzV0t_aijoXRgMq-NP5AwVAvRfa_E",
                                                        with: "s=dGVzdHNlY3JldA==")
        #expect(throws: EnrollmentURIError.invalidParameter(
            scheme: "pushauth", name: "s", meaning: "shared secret",
            problem: "is too short: the shared secret must be at least 256 bits (it has 80)")) {
            try ForgeRockEnrollmentURI.parse(short)
        }
    }

    // protocols.md §1.1: `+` is base64, not a space; padding after the first `=` survives.
    @Test func plusAndPaddingAreKept() throws {
        let uri = try ForgeRockEnrollmentURI.parse(
            FRVectors.uri1.replacingOccurrences(of: "s=b3uYLkQ7dRPjBaIzV0t_aijoXRgMq-NP5AwVAvRfa_E",
                                                with: "s=dA18Iph3slIUDVuRc5+3y7nv9NLGnPksH66d3jIF6uE="))
        #expect(uri.sharedSecret.standardBase64 == "dA18Iph3slIUDVuRc5+3y7nv9NLGnPksH66d3jIF6uE=")
    }

    @Test func labelRules() throws {
        let query = FRVectors.uri1.split(separator: "?", maxSplits: 1)[1].replacingOccurrences(of: "&issuer=Rm9yZ2VSb2Nr", with: "")
        let encoded = try ForgeRockEnrollmentURI.parse("pushauth://push/Acme%20Corp:bob%40example.com?\(query)")
        #expect(encoded.issuer == "Acme Corp" && encoded.accountName == "bob@example.com")
        let noColon = try ForgeRockEnrollmentURI.parse("pushauth://push/solo?\(query)")
        #expect(noColon.issuer == "solo" && noColon.accountName == "solo")
        let noAccount = try ForgeRockEnrollmentURI.parse("pushauth://push/Acme:?\(query)")
        #expect(noAccount.accountName == "Untitled")
        #expect(throws: EnrollmentURIError.badLabel(scheme: "pushauth", problem: "names neither an issuer nor an account")) {
            try ForgeRockEnrollmentURI.parse("pushauth://push/?\(query)")
        }
    }

    @Test(arguments: [
        ("r", "pushauth URI: parameter 'r' (registration endpoint) is missing"),
        ("a", "pushauth URI: parameter 'a' (authentication endpoint) is missing"),
        ("s", "pushauth URI: parameter 's' (shared secret) is missing"),
        ("c", "pushauth URI: parameter 'c' (registration challenge) is missing"),
        ("m", "pushauth URI: parameter 'm' (registration message id) is missing"),
    ])
    func missingParameters(_ name: String, _ message: String) {
        let uri = Self.replacing(name, in: FRVectors.uri1, with: nil)
        expectError(message) { try ForgeRockEnrollmentURI.parse(uri) }
        // Present but empty counts as missing.
        expectError(message) { try ForgeRockEnrollmentURI.parse(uri + "&\(name)=") }
    }

    @Test func hostileValues() {
        let uri = FRVectors.uri1
        expectError("pushauth URI: parameter 's' (shared secret) is not valid base64") {
            try ForgeRockEnrollmentURI.parse(Self.replacing("s", in: uri, with: "!!not*base64!!"))
        }
        expectError("pushauth URI: parameter 'r' (registration endpoint) must be an http(s) URL, not 'ftp://evil.example/x'") {
            try ForgeRockEnrollmentURI.parse(Self.replacing("r", in: uri, with: Data("ftp://evil.example/x".utf8).base64URLUnpadded))
        }
        expectError("pushauth URI: parameter 'a' (authentication endpoint) must be an http(s) URL, not 'not a url'") {
            try ForgeRockEnrollmentURI.parse(Self.replacing("a", in: uri, with: Data("not a url".utf8).base64URLUnpadded))
        }
        expectError("pushauth URI: parameter 'l' (load-balancer cookie) is not base64 of UTF-8 text") {
            try ForgeRockEnrollmentURI.parse(Self.replacing("l", in: uri, with: Data([0xff, 0xfe, 0xfd]).base64URLUnpadded))
        }
        expectError("pushauth URI: parameter 'version' (URI version) must be 1, not '2'") {
            try ForgeRockEnrollmentURI.parse(uri + "&version=2")
        }
        expectError("pushauth URI: parameter 's' appears more than once") {
            try ForgeRockEnrollmentURI.parse(uri + "&s=AAAA")
        }
        expectError("pushauth URI: parameter 'x' has broken percent-encoding") {
            try ForgeRockEnrollmentURI.parse(uri + "&x=%zz")
        }
        expectError("mfauth URI: the type must be 'totp' or 'hotp', not 'push'") {
            try ForgeRockEnrollmentURI.parse(FRVectors.uri2.replacingOccurrences(of: "mfauth://totp/", with: "mfauth://push/"))
        }
        expectError("mfauth URI: parameter 'secret' (OATH secret) is not valid base32") {
            try ForgeRockEnrollmentURI.parse(Self.replacing("secret", in: FRVectors.uri2, with: "1189"))
        }
        expectError("mfauth URI: parameter 'digits' (code length) must be 6, 7 or 8") {
            try ForgeRockEnrollmentURI.parse(Self.replacing("digits", in: FRVectors.uri2, with: "12"))
        }
        expectError("mfauth URI: parameter 'algorithm' (OTP algorithm) must be SHA1, SHA256 or SHA512") {
            try ForgeRockEnrollmentURI.parse(FRVectors.uri2 + "&algorithm=MD5")
        }
        expectError("'otpauth://' is not a ForgeRock enrollment URI (expected pushauth:// or mfauth://)") {
            try ForgeRockEnrollmentURI.parse("otpauth://push/a:b?x=1")
        }
    }

    @Test func rendersWhatItParses() throws {
        for vector in [FRVectors.uri1, FRVectors.uri2, FRVectors.msg1URI] {
            let uri = try ForgeRockEnrollmentURI.parse(vector)
            #expect(try ForgeRockEnrollmentURI.parse(uri.uriString) == uri)
        }
        var odd = try ForgeRockEnrollmentURI.parse(FRVectors.uri1)
        odd.issuer = "A&B Co: #1"
        odd.accountName = "bob+test@example.com"
        odd.registrationMessageId = "REGISTER:a=b&c"
        #expect(try ForgeRockEnrollmentURI.parse(odd.uriString) == odd)
    }

    static func replacing(_ name: String, in uri: String, with value: String?) -> String {
        let (head, query) = (uri.split(separator: "?", maxSplits: 1)[0], uri.split(separator: "?", maxSplits: 1)[1])
        let items = query.split(separator: "&").compactMap { item -> String? in
            guard item.hasPrefix("\(name)=") else { return String(item) }
            return value.map { "\(name)=\($0)" }
        }
        return "\(head)?\(items.joined(separator: "&"))"
    }
}
