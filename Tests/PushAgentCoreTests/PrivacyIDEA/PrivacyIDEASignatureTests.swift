import CryptoExtras
import Foundation
import PushAgentCore
import Testing

/// PKCS#1 v1.5 is deterministic: with the fixed key of PIVectors, every signature must equal, byte for byte, what
/// Python `cryptography` produced in scripts/privacyidea-vectors.py (the library and calls privacyIDEA uses).
@Suite struct PrivacyIDEASignatureTests {
    static let key = try! PrivacyIDEADeviceKey(privateKey: _RSA.Signing.PrivateKey(pemRepresentation: PIVectors.privateKeyPEM))
    static let serverKey = try! PrivacyIDEAServerKey(pemBody: PIVectors.serverPublicKeyBody)

    // PI-SIGN formats (LITERAL, tests/test_lib_tokens_push.py and push_capabilities_conformance_test.dart).
    @Test func signStrings() {
        let (n, s) = (PIVectors.nonce, PIVectors.serial)
        #expect(PrivacyIDEASignText.challenge(nonce: n, url: PIVectors.url, serial: s, question: "Do you want to confirm the login?",
                                              title: "privacyIDEA", sslVerify: "1", presenceOptions: nil) == PIVectors.challengeText)
        #expect(PrivacyIDEASignText.challenge(nonce: n, url: PIVectors.url, serial: s, question: "Do you want to confirm the login?",
                                              title: "privacyIDEA", sslVerify: "1", presenceOptions: "A,B,C") == PIVectors.presenceChallengeText)
        #expect(PrivacyIDEASignText.accept(nonce: n, serial: s, presenceAnswer: nil) == "\(n)|\(s)")
        #expect(PrivacyIDEASignText.accept(nonce: n, serial: s, presenceAnswer: "A") == "\(n)|\(s)|A")
        #expect(PrivacyIDEASignText.decline(nonce: n, serial: s, reason: nil) == "\(n)|\(s)|decline")
        #expect(PrivacyIDEASignText.decline(nonce: n, serial: s, reason: "cancelled") == "\(n)|\(s)|decline|cancelled")
        #expect(PrivacyIDEASignText.poll(serial: s, timestamp: "2020-06-19T13:27:00+00:00") == PIVectors.pollText)
        #expect(PrivacyIDEASignText.tokenUpdate(newToken: "relay-token-1", serial: s, timestamp: "2020-06-19T13:27:00+00:00")
                == PIVectors.tokenUpdateText)
    }

    @Test func signaturesAreByteExact() throws {
        let vectors = [
            (PIVectors.challengeText, PIVectors.challengeSignature),
            (PIVectors.presenceChallengeText, PIVectors.presenceChallengeSignature),
            (PIVectors.acceptText, PIVectors.acceptSignature), (PIVectors.acceptPresenceText, PIVectors.acceptPresenceSignature),
            (PIVectors.declineText, PIVectors.declineSignature), (PIVectors.declineFraudText, PIVectors.declineFraudSignature),
            (PIVectors.pollText, PIVectors.pollSignature), (PIVectors.tokenUpdateText, PIVectors.tokenUpdateSignature),
            (PIVectors.capabilitiesInput, PIVectors.capabilitiesSignature),
        ]
        for (text, expected) in vectors {
            #expect(try Self.key.sign(text) == expected, "signature of \(text)")
            #expect(Self.serverKey.isValid(expected, of: text))
        }
        // Padded base32 of a 512-byte signature: 820 characters plus 4 '='.
        #expect(PIVectors.acceptSignature.count == 824 && PIVectors.acceptSignature.hasSuffix("===="))
    }

    @Test func verificationFailsClosed() throws {
        #expect(!Self.serverKey.isValid(PIVectors.acceptSignature, of: PIVectors.declineText), "another text")
        #expect(!Self.serverKey.isValid(PIVectors.acceptSignature.lowercased() + "A", of: PIVectors.acceptText), "bad base32")
        #expect(!Self.serverKey.isValid("", of: PIVectors.acceptText))
        #expect(!Self.serverKey.isValid(String(PIVectors.acceptSignature.dropLast(16)), of: PIVectors.acceptText), "truncated")
        let other = try PrivacyIDEAServerKey(der: _RSA.Signing.PrivateKey(keySize: .bits2048).publicKey.derRepresentation)
        #expect(!other.isValid(PIVectors.acceptSignature, of: PIVectors.acceptText), "another key")
    }

    /// Step 2's `public_key` is a PKCS#1 body with `\n` line breaks and no header lines (strip_pem_headers).
    @Test func serverKeyFromStepTwo() throws {
        #expect(PIVectors.serverPublicKeyBody.contains("\n") && !PIVectors.serverPublicKeyBody.contains("BEGIN"))
        #expect(try PrivacyIDEAServerKey(pemBody: PIVectors.serverPublicKeyBody).der == Self.key.privateKey.publicKey.pkcs1DERRepresentation)
        #expect(throws: PrivacyIDEAServerKey.Refusal.notBase64) { try PrivacyIDEAServerKey(pemBody: "not base64 !!") }
        #expect(throws: PrivacyIDEAServerKey.Refusal.notAnRSAKey) { try PrivacyIDEAServerKey(pemBody: "AAAA") }
    }

    @Test func generatedKeyIsRSA4096WithExponent65537() throws {
        let key = try PrivacyIDEADeviceKey.generate()
        #expect(key.privateKey.keySizeInBits == 4096)
        let spki = try #require(Data(base64Encoded: key.publicKeyBase64))
        let parsed = try _RSA.Signing.PublicKey(derRepresentation: spki)
        #expect(try parsed.getKeyPrimitives().publicExponent == Data([0x01, 0x00, 0x01]))
        // SubjectPublicKeyInfo, not bare PKCS#1: it starts with the rsaEncryption algorithm identifier.
        #expect(spki.range(of: Data([0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01])) != nil)
        #expect(try PrivacyIDEADeviceKey(derRepresentation: key.derRepresentation).publicKeyBase64 == key.publicKeyBase64)
    }
}
