import Foundation
import PushAgentCore
import Testing

@Suite struct PrivacyIDEAChallengeTests {
    static let receivedAt = Date(timeIntervalSince1970: 1_700_000_000)

    /// A challenge as privacyIDEA 3.14 sends it, signed by the fixture key (signatures from Python).
    static func data(presence: Bool = false, capabilities: Bool = true) -> [String: String] {
        var data = [
            "nonce": PIVectors.nonce, "serial": PIVectors.serial, "url": PIVectors.url,
            "question": "Do you want to confirm the login?", "title": "privacyIDEA", "sslverify": "1",
            "signature": PIVectors.challengeSignature,
        ]
        if presence {
            data["require_presence"] = "A,B,C"
            data["version"] = "2"
            data["signature"] = PIVectors.presenceChallengeSignature
        }
        if capabilities {
            data["capabilities"] = #"{"decline_reason": true}"#
            data["capabilities_signature"] = PIVectors.capabilitiesSignature
        }
        return data
    }

    static func verify(_ data: [String: String]) throws(PushRejection) -> PrivacyIDEAChallenge {
        try PrivacyIDEAPush.verify(data, serverKey: PrivacyIDEASignatureTests.serverKey, receivedAt: receivedAt)
    }

    @Test func verifiedChallengeBecomesAPrompt() throws {
        #expect(PushRouter.route(Self.data()) == .privacyidea)
        #expect(try PrivacyIDEAPush.peekSerial(Self.data()) == PIVectors.serial)
        let challenge = try Self.verify(Self.data())
        #expect(challenge.nonce == PIVectors.nonce && challenge.url == PIVectors.url && challenge.sslVerify)
        #expect(challenge.acceptsDeclineReason)
        #expect(challenge.expiresAt == Self.receivedAt.addingTimeInterval(120))
        let draft = try challenge.approvalDraft(provider: .privacyidea, accountId: "acc_1", accountName: "alice")
        #expect(draft.kind == .prompt && draft.numbers == nil)
        #expect(draft.title == "privacyIDEA" && draft.message == "Do you want to confirm the login?")
        #expect(draft.dedupeKey == PIVectors.nonce, "dedupe by nonce")
        #expect(try PrivacyIDEAChallenge(answerContext: draft.answerContext) == challenge)
    }

    @Test func presenceChallengeAsksForTheOption() throws {
        let draft = try Self.verify(Self.data(presence: true)).approvalDraft(provider: .privacyidea, accountId: "acc_1", accountName: "alice")
        #expect(draft.kind == .number)
        #expect(draft.numbers == ["A", "B", "C"])
    }

    /// Every signed field is covered: changing any one of them must be refused before anything is shown.
    @Test func tamperedChallengeIsRefused() {
        let tampering: [(String, String?)] = [
            ("question", "Pay 1000 EUR?"), ("title", "Bank"), ("url", "https://evil.example/ttype/push"),
            ("serial", "PIPU99999999"), ("nonce", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), ("sslverify", "0"),
            ("require_presence", "A,B"), ("signature", PIVectors.acceptSignature),
        ]
        for (field, value) in tampering {
            var data = Self.data()
            data[field] = value
            #expect(throws: PushRejection.self, "changed \(field)") { try Self.verify(data) }
            do { _ = try Self.verify(data) } catch { #expect(error.reason == .badSignature, "changed \(field)") }
        }
        var presence = Self.data(presence: true)
        presence["require_presence"] = nil
        #expect(throws: PushRejection.self, "dropped require_presence") { try Self.verify(presence) }
    }

    @Test func missingFieldsAreMalformed() {
        for field in ["nonce", "serial", "url", "question", "title", "sslverify", "signature"] {
            var data = Self.data()
            data[field] = nil
            expectError("malformed: privacyIDEA challenge: '\(field)' is missing") { try Self.verify(data) }
        }
    }

    /// Capabilities are trusted only under a valid signature for this nonce (test_23_capabilities_signature_rejects_tampering).
    @Test func capabilitiesNeedTheirOwnValidSignature() throws {
        #expect(try !Self.verify(Self.data(capabilities: false)).acceptsDeclineReason, "absent: legacy server")
        var forged = Self.data()
        forged["capabilities"] = #"{"decline_reason": false}"#
        #expect(try !Self.verify(forged).acceptsDeclineReason)
        var resigned = Self.data()
        resigned["capabilities_signature"] = PIVectors.acceptSignature
        #expect(try !Self.verify(resigned).acceptsDeclineReason)
        // Server test vector: a signature made for TESTNONCEAAAA1111 must not verify for OTHERNONCEBBBB2222.
        let key = PrivacyIDEASignatureTests.key, serverKey = PrivacyIDEASignatureTests.serverKey
        let caps = JSONValue.object(["decline_reason": .bool(true)])
        let signature = try key.sign(PrivacyIDEACapabilities.signingInput(capabilities: caps, nonce: "TESTNONCEAAAA1111"))
        let moved = ["capabilities": #"{"decline_reason":true}"#, "capabilities_signature": signature]
        #expect(PrivacyIDEACapabilities.verified(in: moved, nonce: "TESTNONCEAAAA1111", serverKey: serverKey)?.declineReason == true)
        #expect(PrivacyIDEACapabilities.verified(in: moved, nonce: "OTHERNONCEBBBB2222", serverKey: serverKey) == nil)
        var flipped = moved
        flipped["capabilities"] = #"{"decline_reason":false}"#
        #expect(PrivacyIDEACapabilities.verified(in: flipped, nonce: "TESTNONCEAAAA1111", serverKey: serverKey) == nil)
    }
}
