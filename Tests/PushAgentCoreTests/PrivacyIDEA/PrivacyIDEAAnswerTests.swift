import Foundation
@testable import PushAgentCore
import Testing

@Suite struct PrivacyIDEAAnswerTests {
    static let credentials = PrivacyIDEACredentials(
        serial: PIVectors.serial, url: PIVectors.url, sslVerify: true, pollOnly: true,
        devicePrivateKey: PrivacyIDEASignatureTests.key.derRepresentation,
        serverPublicKey: PrivacyIDEASignatureTests.serverKey.der, pushToken: PrivacyIDEAEnrollment.noPushToken)

    static func form(_ request: OutboundRequest) -> [String: String] {
        let text = String(decoding: request.body, as: UTF8.self)
        return Dictionary(uniqueKeysWithValues: text.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding! }
            return (parts[0], parts.count > 1 ? parts[1] : "")
        })
    }

    static func answer(_ decision: AnswerDecision, presence: Bool = false, capabilities: Bool = true) throws -> [String: String] {
        let challenge = try PrivacyIDEAChallengeTests.verify(PrivacyIDEAChallengeTests.data(presence: presence, capabilities: capabilities))
        let request = try PrivacyIDEAAnswer.request(challenge: challenge, credentials: credentials, decision: decision)
        #expect(request.method == "POST" && request.url == PIVectors.url && request.verifyTLS)
        #expect(request.header("Content-Type") == "application/x-www-form-urlencoded")
        return form(request)
    }

    @Test func accept() throws {
        let fields = try Self.answer(.approve(number: nil))
        #expect(fields == ["serial": PIVectors.serial, "nonce": PIVectors.nonce, "signature": PIVectors.acceptSignature])
    }

    @Test func acceptWithPresence() throws {
        let fields = try Self.answer(.approve(number: "A"), presence: true)
        #expect(fields["presence_answer"] == "A")
        #expect(fields["signature"] == PIVectors.acceptPresenceSignature)
        expectError("this sign-in asks for the option shown on the sign-in screen (one of A, B, C)") {
            try Self.answer(.approve(number: nil), presence: true)
        }
        expectError("D is not one of the offered options (A, B, C)") { try Self.answer(.approve(number: "D"), presence: true) }
        expectError("this sign-in offers no options to choose from") { try Self.answer(.approve(number: "A")) }
    }

    @Test func plainDecline() throws {
        for reason in [DenyReason?.none, .ignore] {
            let fields = try Self.answer(.deny(reason: reason))
            #expect(fields["decline"] == "1" && fields["decline_reason"] == nil)
            #expect(fields["signature"] == PIVectors.declineSignature)
        }
    }

    /// `pushctl deny --fraud` → `unknown_trigger`, but only to a server that signed its `decline_reason` capability.
    @Test func fraudDeclineCarriesAReasonOnlyWhenTheServerReadsIt() throws {
        let fields = try Self.answer(.deny(reason: .fraud))
        #expect(fields["decline_reason"] == "unknown_trigger")
        #expect(fields["signature"] == PIVectors.declineFraudSignature)
        let legacy = try Self.answer(.deny(reason: .fraud), capabilities: false)
        #expect(legacy["decline_reason"] == nil)
        #expect(legacy["signature"] == PIVectors.declineSignature)
    }

    @Test func pollRequest() throws {
        let now = Date(timeIntervalSince1970: 1_592_573_220.25)
        let request = try PrivacyIDEAPoll.request(credentials: Self.credentials, at: now)
        #expect(request.method == "GET" && request.verifyTLS)
        let query = try #require(URLComponents(string: request.url)?.queryItems)
        let values = Dictionary(uniqueKeysWithValues: query.map { ($0.name, $0.value ?? "") })
        #expect(values["serial"] == PIVectors.serial)
        #expect(values["timestamp"] == "2020-06-19T13:27:00.250Z", "ISO-8601 UTC with fractional seconds")
        #expect(PrivacyIDEASignatureTests.serverKey.isValid(values["signature"] ?? "", of: "\(PIVectors.serial)|2020-06-19T13:27:00.250Z"))
        #expect(!request.url.contains("+"), "no raw '+' in the query")
    }

    @Test func tokenUpdateRequest() throws {
        let now = Date(timeIntervalSince1970: 1_592_573_220)
        let request = try PrivacyIDEAPoll.tokenUpdateRequest(credentials: Self.credentials, newToken: "relay-token-1", at: now)
        let fields = Self.form(request)
        #expect(fields["new_fb_token"] == "relay-token-1" && fields["serial"] == PIVectors.serial)
        #expect(fields["timestamp"] == "2020-06-19T13:27:00.000Z")
        #expect(PrivacyIDEASignatureTests.serverKey.isValid(fields["signature"] ?? "",
                                                            of: "relay-token-1|\(PIVectors.serial)|2020-06-19T13:27:00.000Z"))
    }

    @Test func enrollmentStepTwo() throws {
        let uri = try PrivacyIDEAEnrollmentURI.parse(PrivacyIDEAEnrollmentURITests.uri1 + "&poll_only=True")
        let request = PrivacyIDEAEnrollment.request(uri: uri, deviceKey: PrivacyIDEASignatureTests.key, pushToken: nil)
        #expect(request.url == "https://123.456.78.9/ttype/push" && !request.verifyTLS, "sslverify=0 is honoured")
        let fields = Self.form(request)
        #expect(fields["fbtoken"] == "no_firebase_token" && fields["serial"] == "PIPU0000D79E")
        #expect(fields["enrollment_credential"] == "3342826741eb64e8f94e01920a88745bccdecd9e")
        #expect(fields["pubkey"] == PrivacyIDEASignatureTests.key.publicKeyBase64, "'+' survives form encoding")
        let relay = Self.form(PrivacyIDEAEnrollment.request(uri: uri, deviceKey: PrivacyIDEASignatureTests.key, pushToken: "tok"))
        #expect(relay["fbtoken"] == "tok")

        let reply = #"{"result": {"status": true, "value": true}, "detail": {"rollout_state": "enrolled", "public_key": "\#(PIVectors.serverPublicKeyBody.replacingOccurrences(of: "\n", with: "\\n"))"}}"#
        #expect(try PrivacyIDEAEnrollment.serverKey(from: Data(reply.utf8)).der == PrivacyIDEASignatureTests.serverKey.der)
        let refused = #"{"result": {"status": false, "error": {"code": 905, "message": "ERR905: Invalid enrollment credential. You are not authorized to finalize this token."}}}"#
        expectError("enrollment: privacyIDEA says: ERR905: Invalid enrollment credential. You are not authorized to finalize this token.") {
            try PrivacyIDEAEnrollment.serverKey(from: Data(refused.utf8))
        }
        expectError("enrollment: the answer is not privacyIDEA's JSON") { try PrivacyIDEAEnrollment.serverKey(from: Data("<html>".utf8)) }
    }

    @Test func replies() throws {
        #expect(try PrivacyIDEAPoll.challenges(from: Data(#"{"result": {"status": true, "value": []}}"#.utf8)).isEmpty)
        expectError("poll: privacyIDEA says: Could not verify signature!") {
            try PrivacyIDEAPoll.challenges(from: Data(#"{"result": {"status": false, "error": {"code": 601, "message": "Could not verify signature!"}}}"#.utf8))
        }
        try PrivacyIDEAPoll.confirmed(Data(#"{"result": {"status": true, "value": true}}"#.utf8), what: "answer")
        expectError("answer: privacyIDEA did not accept it (result.value is false)") {
            try PrivacyIDEAPoll.confirmed(Data(#"{"result": {"status": true, "value": false}}"#.utf8), what: "answer")
        }
    }

    /// protocols.md §4.4: in code-to-phone mode the accepted answer's reply carries the code for the sign-in screen
    /// (pushtoken.py: `details["display_code"]`, `details["message"]`).
    @Test func answerRepliesCarryTheCodeToPhone() throws {
        let plain = #"{"result": {"status": true, "value": true}, "detail": {"message": "ok"}}"#
        #expect(try PrivacyIDEAAnswer.reply(from: Data(plain.utf8)) == PrivacyIDEAAnswer.Reply())
        let codeToPhone = #"{"result": {"status": true, "value": true}, "detail": {"display_code": "07", "message": "Enter the code to log in"}}"#
        #expect(try PrivacyIDEAAnswer.reply(from: Data(codeToPhone.utf8))
                == PrivacyIDEAAnswer.Reply(displayCode: "07", message: "Enter the code to log in"))
        expectError("answer: privacyIDEA did not accept it (result.value is false)") {
            try PrivacyIDEAAnswer.reply(from: Data(#"{"result": {"status": true, "value": false}, "detail": {"display_code": "07"}}"#.utf8))
        }
    }
}
