import Foundation
import Testing
@testable import PushAgentCore

@Suite struct GuardianAnswerTests {
    typealias S = GuardianSamples

    /// GU-JWT-1: the iOS SDK's answer JWT verifies under its test key, and reads as the SDK's test says.
    @Test func theIOSSpecJWTVerifies() async throws {
        let key = try GuardianServer.publicKey(GuardianJWK(n: GuardianVectors.iosTestKey.n, e: GuardianVectors.iosTestKey.e))
        let claims = try await GuardianServer.verifyAnswer(GuardianVectors.iosAnswerJWT, publicKey: key)
        #expect(claims == GuardianAnswerClaims(
            iat: 1_532_990_074, exp: 1_532_990_150, aud: "9E8B3F66-901D-4B36-BF6B-11CFCAFC01A1",
            iss: "EA7E8C30-DD87-43B0-840A-3761532E6893", sub: "38133F3B-5662-4361-B212-BDEBBC86C5FF", method: "push",
            accepted: false, reason: "hacked"))
        let other = try GuardianServer.publicKey(S.key.publicJWK())
        await #expect(throws: JWSError.badSignature) { try await GuardianServer.verifyAnswer(GuardianVectors.iosAnswerJWT, publicKey: other) }
    }

    @Test(arguments: [
        (AnswerDecision.approve(number: nil), true, String?.none),
        (.deny(reason: nil), false, nil),
        (.deny(reason: .ignore), false, nil),
        (.deny(reason: .fraud), false, "fraud"),
    ])
    func everyClaimOfTheAnswer(_ decision: AnswerDecision, _ accepted: Bool, _ reason: String?) async throws {
        let request = try await GuardianAnswer.request(notification: S.notification, credentials: S.credentials(),
                                                       decision: decision, at: S.now)
        #expect(request.method == "POST")
        #expect(request.url == "https://tenant.eu.auth0.com/appliance-mfa/api/resolve-transaction")
        #expect(request.header("Authorization") == "Bearer random_tx_token", "the push's transaction token")
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.header("Auth0-Client") == GuardianHTTP.auth0Client)
        let body = try JSONDecoder().decode(GuardianResolveBody.self, from: request.body)
        #expect(try JSONSerialization.jsonObject(with: request.body) as? [String: String]
                == ["challenge_response": body.challengeResponse], "the body is that one member")

        let header = try CompactJWS.header(of: body.challengeResponse)
        #expect(header == ["alg": .string("RS256"), "typ": .string("JWT")])
        let claims = try await GuardianServer.verifyAnswer(body.challengeResponse, publicKey: S.key.privateKey.publicKey)
        #expect(claims == GuardianAnswerClaims(
            iat: 1_700_000_000, exp: 1_700_000_030, aud: "https://tenant.eu.auth0.com/appliance-mfa/api/resolve-transaction",
            iss: "pushagent-device-1", sub: "random_challenge", method: "push", accepted: accepted, reason: reason))

        // The raw payload: no reason member at all unless there is one (Android leaves it out).
        let payload = try CompactJWS.unverifiedPayload(of: body.challengeResponse, as: [String: JSONValue].self)
        #expect(Set(payload.keys) == Set(["iat", "exp", "aud", "iss", "sub", "auth0_guardian_method", "auth0_guardian_accepted"]
            + (reason == nil ? [] : ["auth0_guardian_reason"])))
        #expect(payload["auth0_guardian_accepted"] == .bool(accepted))
    }

    @Test func aNumberIsRefusedBeforeSigning() async {
        await #expect(throws: GuardianAnswer.Refusal.numberOnPrompt("34")) {
            try await GuardianAnswer.request(notification: S.notification, credentials: S.credentials(),
                                             decision: .approve(number: "34"), at: S.now)
        }
    }

    @Test func theAnswerGoesToTheAccountNotThePushHost() async throws {
        var notification = S.notification
        notification.hostname = "evil.example"
        let request = try await GuardianAnswer.request(notification: notification,
                                                       credentials: S.credentials(apiBase: "https://t.guardian.auth0.com"),
                                                       decision: .approve(number: nil), at: S.now)
        #expect(request.url == "https://t.guardian.auth0.com/api/resolve-transaction")
    }

    @Test func aTamperedAnswerFails() async throws {
        let request = try await GuardianAnswer.request(notification: S.notification, credentials: S.credentials(),
                                                       decision: .approve(number: nil), at: S.now)
        let jwt = try JSONDecoder().decode(GuardianResolveBody.self, from: request.body).challengeResponse
        let parts = jwt.split(separator: ".")
        let forged = Data(#"{"auth0_guardian_accepted":true,"sub":"other"}"#.utf8).base64URLUnpadded
        await #expect(throws: JWSError.badSignature) {
            try await GuardianServer.verifyAnswer("\(parts[0]).\(forged).\(parts[2])", publicKey: S.key.privateKey.publicKey)
        }
        let none = Data(#"{"alg":"none"}"#.utf8).base64URLUnpadded
        await #expect(throws: JWSError.algorithmNotAllowed("none", allowed: "RS256")) {
            try await GuardianServer.verifyAnswer("\(none).\(parts[1]).", publicKey: S.key.privateKey.publicKey)
        }
    }
}
