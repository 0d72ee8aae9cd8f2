import Foundation
import Testing
@testable import PushAgentCore

/// FR-AUTH-REQ: forgerock-ios-sdk FRAuthenticator/FRAuthenticatorTests/UnitTests/Push/PushNotificationAuthenticationTests.swift
/// test_03 (approve), test_04 (deny), test_08 (challenge).
@Suite struct ForgeRockAnswerTests {
    static let credentials = ForgeRockCredentials(
        mechanismUid: FRVectors.authUID, sharedSecret: FRVectors.authSecret,
        authenticationURL: "http://openam.example.com:8081/openam/json/push/sns/message?_action=authenticate",
        registrationURL: "http://openam.example.com:8081/openam/json/push/sns/message?_action=register")

    static func notification(_ type: ForgeRockNotification.PushType = .default, numbers: [String]? = nil)
        -> ForgeRockNotification {
        ForgeRockNotification(messageId: FRVectors.authMessageId, mechanismUid: FRVectors.authUID,
                              challenge: FRVectors.authChallenge, ttlSeconds: 120, cookie: "amlbcookie=01",
                              issuedAt: Date(timeIntervalSince1970: 1_588_721_432), text: nil, pushType: type,
                              numbers: numbers, contextInfo: nil, userId: nil)
    }

    /// The request, its verified claims, and the raw payload JSON (to see the JSON types on the wire).
    static func answer(_ notification: ForgeRockNotification, _ decision: AnswerDecision) async throws
        -> (OutboundRequest, ForgeRockAnswerClaims, [String: JSONValue]) {
        let request = try await ForgeRockAnswer.request(notification: notification, credentials: credentials, decision: decision)
        let body = try TestJWT.body(of: request)
        #expect(body.messageId == FRVectors.authMessageId)
        let claims = try await ForgeRockServer.verifyAnswer(body.jwt, secret: FRVectors.authSecret,
                                                            challenge: LenientBase64.decode(FRVectors.authChallenge)!)
        #expect(claims.response == FRVectors.authResponse)
        return (request, claims, try CompactJWS.unverifiedPayload(of: body.jwt, as: [String: JSONValue].self))
    }

    @Test func approve() async throws {
        let (request, claims, raw) = try await Self.answer(Self.notification(), .approve(number: nil))
        #expect(claims.deny == nil && claims.challengeResponse == nil)
        #expect(raw.keys.sorted() == ["response"])
        #expect(request.method == "POST" && request.url == Self.credentials.authenticationURL)
        #expect(request.header("Accept-API-Version") == "resource=1.0, protocol=1.0")
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.header("Cookie") == "amlbcookie=01")
    }

    @Test func deny() async throws {
        let (_, claims, raw) = try await Self.answer(Self.notification(), .deny(reason: .fraud))
        #expect(claims.deny == true)
        #expect(raw["deny"] == .bool(true))
        #expect(raw["challengeResponse"] == nil)
    }

    @Test func challenge() async throws {
        let notification = Self.notification(.challenge, numbers: ["34", "56", "82"])
        let (_, claims, raw) = try await Self.answer(notification, .approve(number: "34"))
        #expect(claims.challengeResponse == "34" && claims.deny == nil)
        #expect(raw["challengeResponse"] == .string("34"))
        // Never a challengeResponse on deny (Android's behaviour).
        let (_, denied, deniedRaw) = try await Self.answer(notification, .deny(reason: nil))
        #expect(denied.deny == true && deniedRaw["challengeResponse"] == nil)
    }

    @Test func challengeNeedsOneOfTheOfferedNumbers() async {
        let notification = Self.notification(.challenge, numbers: ["34", "56", "82"])
        await #expect(throws: ForgeRockAnswer.Refusal.numberRequired) {
            try await ForgeRockAnswer.request(notification: notification, credentials: Self.credentials, decision: .approve(number: nil))
        }
        await #expect(throws: ForgeRockAnswer.Refusal.numberNotOffered("99", choices: ["34", "56", "82"])) {
            try await ForgeRockAnswer.request(notification: notification, credentials: Self.credentials, decision: .approve(number: "99"))
        }
    }

    @Test func cookieComesFromTheNotification() async throws {
        var notification = Self.notification()
        notification.cookie = nil
        let request = try await ForgeRockAnswer.request(notification: notification, credentials: Self.credentials,
                                                        decision: .approve(number: nil))
        #expect(request.header("Cookie") == nil)
    }

    @Test func corruptStoredChallengeFailsClosed() async {
        var notification = Self.notification()
        notification.challenge = "***"
        await #expect(throws: ForgeRockAnswer.Refusal.malformedChallenge) {
            try await ForgeRockAnswer.request(notification: notification, credentials: Self.credentials, decision: .approve(number: nil))
        }
    }

    @Test func refusesAnotherAccountsCredentials() async {
        var other = Self.credentials
        other.mechanismUid = "someone-else"
        await #expect(throws: ForgeRockAnswer.Refusal.self) {
            try await ForgeRockAnswer.request(notification: Self.notification(), credentials: other, decision: .approve(number: nil))
        }
    }
}
