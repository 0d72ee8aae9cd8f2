import Foundation
import Testing
@testable import PushAgentCore

@Suite struct PlusAuthAnswerTests {
    typealias S = PlusAuthSamples
    static let fallback = "/push-authenticator/resolve-challenge"

    static func credentials(_ algorithm: PlusAuthAlgorithm = .es256) throws -> PlusAuthCredentials {
        PlusAuthCredentials(algorithm: algorithm, privateKey: try PlusAuthKeys.generate(algorithm), deviceIdentifier: "dev-1",
                            enrollmentURL: "https://tenant.example.com:8443/push-authenticator/enroll",
                            binding: PlusAuthBinding(enrolledIdentity: nil))
    }

    static func challenge(type: String = "code") throws -> PlusAuthChallenge {
        var claims = S.docClaims
        claims.type = type
        return try PlusAuthPush.challenge(from: claims, receivedAt: S.now)
    }

    @Test(arguments: [
        ("code", AnswerDecision.approve(number: "21"), PlusAuthAnswerClaims(contextToken: "CONTEXT_TOKEN", iat: 1_702_243_067, selectedValue: "21")),
        ("code", .deny(reason: nil), PlusAuthAnswerClaims(contextToken: "CONTEXT_TOKEN", iat: 1_702_243_067, rejectReason: "ignore")),
        ("code", .deny(reason: .fraud), PlusAuthAnswerClaims(contextToken: "CONTEXT_TOKEN", iat: 1_702_243_067, rejectReason: "fraud_suspicion")),
        ("prompt", .approve(number: nil), PlusAuthAnswerClaims(contextToken: "CONTEXT_TOKEN", iat: 1_702_243_067, response: "accepted")),
        ("prompt", .deny(reason: .ignore), PlusAuthAnswerClaims(contextToken: "CONTEXT_TOKEN", iat: 1_702_243_067, response: "rejected", rejectReason: "ignore")),
        ("prompt", .deny(reason: .fraud), PlusAuthAnswerClaims(contextToken: "CONTEXT_TOKEN", iat: 1_702_243_067, response: "rejected", rejectReason: "fraud_suspicion")),
    ])
    func answerClaims(_ type: String, _ decision: AnswerDecision, _ expected: PlusAuthAnswerClaims) throws {
        #expect(try PlusAuthAnswer.claims(for: Self.challenge(type: type), decision: decision, at: S.now) == expected)
    }

    @Test func wrongChoicesAreRefusedBeforeAnythingIsSent() throws {
        let code = try Self.challenge()
        #expect(throws: PlusAuthAnswer.Refusal.valueRequired(choices: ["83", "21", "12"])) {
            try PlusAuthAnswer.claims(for: code, decision: .approve(number: nil), at: S.now)
        }
        #expect(throws: PlusAuthAnswer.Refusal.valueNotOffered("99", choices: ["83", "21", "12"])) {
            try PlusAuthAnswer.claims(for: code, decision: .approve(number: "99"), at: S.now)
        }
        #expect(throws: PlusAuthAnswer.Refusal.valueOnPrompt) {
            try PlusAuthAnswer.claims(for: Self.challenge(type: "prompt"), decision: .approve(number: "83"), at: S.now)
        }
    }

    @Test(arguments: PlusAuthAlgorithm.allCases)
    func resolveRequestIsVerifiedByTheServerSide(_ algorithm: PlusAuthAlgorithm) async throws {
        let credentials = try Self.credentials(algorithm)
        let requests = try await PlusAuthAnswer.requests(challenge: Self.challenge(), credentials: credentials,
                                                         decision: .approve(number: "83"), fallbackPath: Self.fallback, at: S.now)
        #expect(requests.map(\.url) == ["https://mytenant.plusauth.com/push-authenticator/resolve",
                                        "https://mytenant.plusauth.com/push-authenticator/resolve-challenge"])
        let request = try #require(requests.first)
        #expect(request.method == "POST")
        #expect(request.header("Authorization") == "Bearer CONTEXT_TOKEN", "the context's own token, §2.6.4")
        #expect(request.header("Content-Type") == "application/json")
        let body = try JSONDecoder().decode(PlusAuthResolveBody.self, from: request.body)
        #expect(body.deviceIdentifier == "dev-1")
        let claims = try await PlusAuthServer.verifyAnswer(body.context, publicKey: credentials.privateKey.publicKey,
                                                           algorithm: algorithm)
        #expect(claims.selectedValue == "83" && claims.contextToken == "CONTEXT_TOKEN")
        let stranger = try PlusAuthKeys.generate(algorithm)
        await #expect(throws: PlusAuthServer.Refusal(message: "the JWT signature does not verify")) {
            try await PlusAuthServer.verifyAnswer(body.context, publicKey: stranger.publicKey, algorithm: algorithm)
        }
    }

    @Test func fallbackGoesToTheSameOrigin() throws {
        var challenge = try Self.challenge()
        challenge.resolveURL = "http://127.0.0.1:9000/gone?x=1"
        #expect(PlusAuthAnswer.resolveURLs(challenge: challenge, enrollmentURL: "https://other/e", fallbackPath: Self.fallback)
            == ["http://127.0.0.1:9000/gone?x=1", "http://127.0.0.1:9000/push-authenticator/resolve-challenge"])
        #expect(PlusAuthAnswer.resolveURLs(challenge: challenge, enrollmentURL: "https://other/e", fallbackPath: nil)
            == ["http://127.0.0.1:9000/gone?x=1"])
        challenge.resolveURL = nil
        #expect(PlusAuthAnswer.resolveURLs(challenge: challenge, enrollmentURL: "https://tenant.example.com:8443/push-authenticator/enroll",
                                           fallbackPath: Self.fallback)
            == ["https://tenant.example.com:8443/push-authenticator/resolve-challenge"])
        challenge.resolveURL = "https://t/push-authenticator/resolve-challenge"
        #expect(PlusAuthAnswer.resolveURLs(challenge: challenge, enrollmentURL: "", fallbackPath: Self.fallback).count == 1)
    }

    @Test func noResolveURLAndNoFallbackIsRefused() async throws {
        var challenge = try Self.challenge()
        challenge.resolveURL = nil
        await #expect(throws: PlusAuthAnswer.Refusal.nowhereToResolve) {
            try await PlusAuthAnswer.requests(challenge: challenge, credentials: Self.credentials(), decision: .deny(reason: nil),
                                              fallbackPath: nil, at: S.now)
        }
    }

    @Test(arguments: PlusAuthAlgorithm.allCases)
    func enrollmentCarriesBothKeysAndIsAcceptedByTheServerSide(_ algorithm: PlusAuthAlgorithm) async throws {
        let uri = try PlusAuthEnrollmentURI.parse(PlusAuthEnrollmentURITests.docSample)
        let key = try PlusAuthKeys.generate(algorithm)
        let request = try PlusAuthEnrollment.request(uri: uri, privateKey: key, deviceIdentifier: "dev-1", deviceToken: "relay-token")
        #expect(request.url == "https://mytenant.plusauth.com/push-authenticator/enroll")
        #expect(request.header("Authorization") == "Bearer SOME_TOKEN")
        #expect(request.header("User-Agent") == "pushagent (Linux)")
        let json = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
        #expect(Set(json.keys) == ["public_key", "private_key", "device_identifier", "credentials"])
        #expect((json["credentials"] as? [String: String]) == ["service": "fcm", "device_token": "relay-token"])
        #expect((json["public_key"] as? [String: String])?["d"] == nil, "the public JWK has no private member")
        let body = try JSONDecoder().decode(PlusAuthEnrollmentBody.self, from: request.body)
        #expect(try await PlusAuthServer.verifyEnrollment(body) == algorithm)

        var mismatched = body
        mismatched.publicKey = try PlusAuthKeys.generate(algorithm).publicKey
        await #expect(throws: PlusAuthServer.Refusal(message: "public_key and private_key are not the same key pair")) {
            try await PlusAuthServer.verifyEnrollment(mismatched)
        }
    }
}
