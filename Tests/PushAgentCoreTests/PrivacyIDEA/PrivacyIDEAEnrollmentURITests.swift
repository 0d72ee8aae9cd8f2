import Foundation
import PushAgentCore
import Testing

@Suite struct PrivacyIDEAEnrollmentURITests {
    // PI-URI-1 (LITERAL): pi-authenticator otp_auth_processor_test.dart.
    static let uri1 = "otpauth://pipush/PIPU0000D79E?url=https%3A//123.456.78.9/ttype/push&ttl=10&issuer=privacyIDEA&enrollment_credential=3342826741eb64e8f94e01920a88745bccdecd9e&v=1&serial=PIPU0000D79E&sslverify=0"
    // PI-URI-2 (LITERAL): token_notifier_test.dart.
    static let uri2 = "otpauth://pipush/PIPU0006BF18?url=https%3A//192.168.178.30/ttype/push&ttl=10&issuer=privacyIDEA&enrollment_credential=ae60d4744ac5384515574b85f538c6a4e0c7bc82&v=1&serial=PIPU0006BF18&sslverify=0"
    // PI-URI-3 (LITERAL): privacy_idea_container_api_test.dart.
    static let uri3 = "pia://pipush/test-user?url=https%3A%2F%2Fexample.com%2Fttype%2Fpush&ttl=2&issuer=privacyIDEA&enrollment_credential=test-credential&v=1&serial=PIPU00000001&sslverify=1&poll_only=False"

    @Test func piURI1() throws {
        guard let uri = try EnrollmentURI.parse(Self.uri1).details(as: PrivacyIDEAEnrollmentURI.self) else { Issue.record(); return }
        #expect(uri.issuer == "privacyIDEA")
        #expect(uri.label == "PIPU0000D79E" && uri.serial == "PIPU0000D79E")
        #expect(uri.registrationURL == "https://123.456.78.9/ttype/push")
        #expect(!uri.sslVerify)
        #expect(uri.ttlMinutes == 10 && uri.enrollmentWindow == 600)
        #expect(uri.enrollmentCredential == "3342826741eb64e8f94e01920a88745bccdecd9e")
        #expect(!uri.pollOnly)
        #expect(try EnrollmentURI.parse(Self.uri1).provider == .privacyidea)
    }

    @Test func piURI2() throws {
        let uri = try PrivacyIDEAEnrollmentURI.parse(Self.uri2)
        #expect(uri.serial == "PIPU0006BF18")
        #expect(uri.registrationURL == "https://192.168.178.30/ttype/push")
        #expect(uri.enrollmentCredential == "ae60d4744ac5384515574b85f538c6a4e0c7bc82")
    }

    @Test func piURI3() throws {
        let uri = try PrivacyIDEAEnrollmentURI.parse(Self.uri3)
        #expect(uri.scheme == "pia")
        #expect(uri.label == "test-user" && uri.serial == "PIPU00000001")
        #expect(uri.registrationURL == "https://example.com/ttype/push")
        #expect(uri.sslVerify && !uri.pollOnly)
        #expect(uri.ttlMinutes == 2)
    }

    /// privacyIDEA writes `poll_only=True` with the enroll policy `push_firebase_configuration = poll only`.
    @Test func pollOnly() throws {
        #expect(try PrivacyIDEAEnrollmentURI.parse(Self.uri1 + "&poll_only=True").pollOnly)
        #expect(try !PrivacyIDEAEnrollmentURI.parse(Self.uri1 + "&poll_only=False").pollOnly)
    }

    @Test func hostileURIsSayWhatIsWrong() {
        let base = "otpauth://pipush/PIPU1?url=https%3A//pi.example.com/ttype/push&ttl=10&enrollment_credential=abc&serial=PIPU1"
        let cases: [(String, String)] = [
            (base + "&v=2", "otpauth URI: parameter 'v' (protocol version) must be 1, not '2': this agent speaks version 1 only"),
            (base, "otpauth URI: parameter 'v' (protocol version) is missing"),
            (base.replacingOccurrences(of: "&serial=PIPU1", with: "") + "&v=1",
             "otpauth URI: parameter 'serial' (token serial) is missing"),
            (base.replacingOccurrences(of: "serial=PIPU1", with: "serial=A%7CB") + "&v=1",
             "otpauth URI: parameter 'serial' (token serial) must be up to 64 printable ASCII characters without '|'"),
            (base.replacingOccurrences(of: "https%3A//pi.example.com/ttype/push", with: "javascript%3Aalert(1)") + "&v=1",
             "otpauth URI: parameter 'url' (registration URL) must be an http(s) URL, not 'javascript:alert(1)'"),
            (base.replacingOccurrences(of: "ttl=10", with: "ttl=0") + "&v=1",
             "otpauth URI: parameter 'ttl' (enrollment time limit in minutes) must be at least 1: the enrollment window is already over"),
            (base.replacingOccurrences(of: "ttl=10", with: "ttl=ten") + "&v=1",
             "otpauth URI: parameter 'ttl' (enrollment time limit in minutes) must be a whole number"),
            (base + "&v=1&sslverify=maybe", "otpauth URI: parameter 'sslverify' (TLS certificate check) must be one of 0, 1"),
            (base + "&v=1&poll_only=sometimes",
             "otpauth URI: parameter 'poll_only' (poll-only mode) must be one of 0, 1, false, true"),
            (base.replacingOccurrences(of: "enrollment_credential=abc&", with: "") + "&v=1",
             "otpauth URI: parameter 'enrollment_credential' (enrollment credential) is missing"),
            (base + "&v=1&v=1", "otpauth URI: parameter 'v' appears more than once"),
            ("pia://push/x?v=1", "pia URI: the type must be 'pipush', not 'push'"),
        ]
        for (uri, message) in cases {
            expectError(message) { try EnrollmentURI.parse(uri) }
        }
    }

    @Test func summaryWarnsWhenTLSIsNotChecked() throws {
        let summary = try EnrollmentURI.parse(Self.uri1 + "&poll_only=True").summary
        #expect(summary["provider"] == "privacyIDEA")
        #expect(summary["transport"] == "polling (poll only)")
        #expect(summary["tls_verification"] == "OFF (the QR code says sslverify=0)")
        #expect(!summary.values.contains { $0.contains("3342826741eb") }, "the enrollment credential is a secret")
    }
}
