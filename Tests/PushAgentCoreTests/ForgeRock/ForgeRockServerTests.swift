import Foundation
import Testing
@testable import PushAgentCore

/// The server side (pushsim's AM) against the agent side.
@Suite struct ForgeRockServerTests {
    static let secret = Data((0..<32).map { UInt8($0) })
    static let challenge = Data(repeating: 9, count: 32)
    static let issued = Date(timeIntervalSince1970: 1_700_000_000.123)

    @Test func notificationRoundTrip() async throws {
        let claims = ForgeRockServer.notificationClaims(
            challenge: Self.challenge, mechanismUid: "mech-1", ttlSeconds: 90, cookie: "amlbcookie=01", issuedAt: Self.issued,
            pushType: .challenge, numbers: ["12", "47", "80"], message: "Sign in?", userId: "alice")
        #expect(claims.issuedAtMillis == "1700000000123" && claims.cookie == "YW1sYmNvb2tpZT0wMQ==" && claims.ttl == "90")
        let token = try await ForgeRockServer.signNotification(claims, secret: Self.secret)
        let data = ["messageId": "AUTHENTICATE:1", "message": token]
        #expect(try ForgeRockPush.peek(data).mechanismUid == "mech-1")
        let notification = try await ForgeRockPush.verify(data, secret: Self.secret, receivedAt: Self.issued)
        #expect(notification.numbers == ["12", "47", "80"] && notification.cookie == "amlbcookie=01")
        #expect(notification.ttlSeconds == 90 && notification.userId == "alice" && notification.text == "Sign in?")
        #expect(abs(notification.issuedAt.timeIntervalSince(Self.issued)) < 0.001)
    }

    @Test func answerChecks() async throws {
        let notification = ForgeRockNotification(
            messageId: "AUTHENTICATE:1", mechanismUid: "mech-1", challenge: Self.challenge.standardBase64, ttlSeconds: 120,
            cookie: nil, issuedAt: Self.issued, text: nil, pushType: .default, numbers: nil, contextInfo: nil, userId: nil)
        let credentials = ForgeRockCredentials(mechanismUid: "mech-1", sharedSecret: Self.secret,
                                               authenticationURL: "http://127.0.0.1/a", registrationURL: "http://127.0.0.1/r")
        let request = try await ForgeRockAnswer.request(notification: notification, credentials: credentials,
                                                        decision: .approve(number: nil))
        let jwt = try JSONDecoder().decode(ForgeRockMessageBody.self, from: request.body).jwt
        _ = try await ForgeRockServer.verifyAnswer(jwt, secret: Self.secret, challenge: Self.challenge)
        await #expect(throws: ForgeRockServer.Refusal(message: "the challenge response does not match")) {
            try await ForgeRockServer.verifyAnswer(jwt, secret: Self.secret, challenge: Data(repeating: 1, count: 32))
        }
        await #expect(throws: ForgeRockServer.Refusal(message: "the JWT signature does not verify")) {
            try await ForgeRockServer.verifyAnswer(jwt, secret: Data(repeating: 2, count: 32), challenge: Self.challenge)
        }
    }
}
