import Foundation
import Testing
@testable import PushAgentCore

@Suite struct ForgeRockPushTests {
    static let now = Date(timeIntervalSince1970: 1_589_138_700)
    static let wrongSecret = Data(repeating: 7, count: 32)

    static func data(_ token: String, messageId: String = FRVectors.msg1MessageId) -> [String: String] {
        ["messageId": messageId, "message": token]
    }

    static func rejection(_ data: [String: String], secret: Data = FRVectors.msg1Secret,
                          at date: Date = now) async -> PushRejection? {
        do {
            _ = try await ForgeRockPush.verify(data, secret: secret, receivedAt: date)
            return nil
        } catch {
            return error
        }
    }

    // FR-MSG-1: FRAPushHandlerTests.swift test_04.
    @Test func frMSG1() async throws {
        let data = Self.data(FRVectors.msg1)
        #expect(PushRouter.route(data) == .forgerock)
        let peeked = try ForgeRockPush.peek(data)
        #expect(peeked.messageId == FRVectors.msg1MessageId && peeked.mechanismUid == FRVectors.msg1UID)

        let notification = try await ForgeRockPush.verify(data, secret: FRVectors.msg1Secret, receivedAt: Self.now)
        #expect(notification.messageId == FRVectors.msg1MessageId)
        #expect(notification.mechanismUid == FRVectors.msg1UID)
        #expect(notification.cookie == "amlbcookie=01")
        #expect(notification.ttlSeconds == 120)
        #expect(notification.challenge == FRVectors.msg1Challenge)
        #expect(notification.pushType == .default && notification.numbers == nil && notification.text == nil)
        // No `i`: issued at receipt, so pending for the whole ttl.
        #expect(notification.issuedAt == Self.now)
        #expect(notification.expiresAt == Self.now.addingTimeInterval(120))

        let uri = try ForgeRockEnrollmentURI.parse(FRVectors.msg1URI)
        let answer = try await ForgeRockAnswer.request(
            notification: notification, credentials: ForgeRockCredentials(uri: uri, mechanismUid: FRVectors.msg1UID),
            decision: .approve(number: nil))
        let claims = try await ForgeRockServer.verifyAnswer(
            try TestJWT.body(of: answer).jwt, secret: FRVectors.msg1Secret,
            challenge: LenientBase64.decode(FRVectors.msg1Challenge)!)
        #expect(claims.response == FRVectors.msg1AcceptResponse)
        #expect(answer.url == "http://openam.example.com:8081/openam/json/push/sns/message?_action=authenticate")
    }

    // FR-MSG-2: FRAPushHandlerTests.swift test_14 — the `d` claim carries the user id.
    @Test func frMSG2() async throws {
        let notification = try await ForgeRockPush.verify(Self.data(FRVectors.msg2), secret: FRVectors.msg1Secret,
                                                          receivedAt: Self.now)
        #expect(notification.userId == "user1")
        #expect(notification.mechanismUid == FRVectors.msg1UID)
    }

    // AuthenticatorManagerTests.swift test_28..31: right secret accepted, wrong secret refused, DERIVED answers.
    @Test(arguments: FRVectors.managerMessages.map { [$0.token, $0.challenge, $0.response] })
    func managerMessages(_ vector: [String]) async throws {
        let (token, challenge, response) = (vector[0], vector[1], vector[2])
        let notification = try await ForgeRockPush.verify(Self.data(token), secret: FRVectors.msg1Secret, receivedAt: Self.now)
        #expect(notification.challenge == challenge)
        #expect(ForgeRockChallenge.response(secret: FRVectors.msg1Secret, challenge: LenientBase64.decode(challenge)!) == response)
        #expect(await Self.rejection(Self.data(token), secret: Self.wrongSecret)?.reason == .badSignature)
    }

    // FR-MSG-3: FRCompactJWTTests.swift test_10 — AM-shaped messages whose secret is not public: peek only.
    @Test func frMSG3() async throws {
        let challenge = Self.data(FRVectors.msg3Challenge, messageId: "AUTHENTICATE:x")
        #expect(try ForgeRockPush.peek(challenge).mechanismUid == FRVectors.msg3UID)
        #expect(try ForgeRockPush.peek(Self.data(FRVectors.msg3Default)).mechanismUid == FRVectors.msg3UID)
        // The challenge message's payload segment contains `_` (base64url): it must decode all nine claims.
        #expect(FRVectors.msg3Challenge.split(separator: ".")[1].contains("_"))
        let payload = try CompactJWS.unverifiedPayload(of: FRVectors.msg3Challenge, as: [String: JSONValue].self)
        #expect(payload.count == 9)
        #expect(payload["m"] == .string("Did you try to login?"))
        #expect(payload["n"] == .string("50,62,89"))
        // Without its secret, verification fails closed.
        #expect(await Self.rejection(challenge, secret: Self.wrongSecret)?.reason == .badSignature)
    }

    // FR-JWT-1 test_06 applied to a push: an HS384 header is refused whatever the signature.
    @Test func algorithmIsPinned() async {
        let payload = FRVectors.msg1.split(separator: ".")[1]
        for header in [FRVectors.hs384Header, TestJWT.payloadSegment(#"{"alg":"none"}"#),
                       TestJWT.payloadSegment(#"{"typ":"JWT"}"#), TestJWT.payloadSegment(#"{"alg":"HS512"}"#)] {
            let token = TestJWT.sign(header: header, payload: String(payload), key: FRVectors.msg1Secret)
            #expect(await Self.rejection(Self.data(token))?.reason == .algorithmNotAllowed)
        }
        let unsigned = "\(TestJWT.payloadSegment(#"{"alg":"none"}"#)).\(payload)."
        #expect(await Self.rejection(Self.data(unsigned))?.reason == .algorithmNotAllowed)
    }

    @Test func tamperedPayloadIsRefused() async {
        let parts = FRVectors.msg1.split(separator: ".")
        let forged = TestJWT.payloadSegment(#"{"c":"lYmfePS9eb++1kio2IIJAtwUWWCcZCs+BSgKPjZKN28=","t":"99999","u":"759ACE9D-C64B-43E6-981D-97F7B54C3B01"}"#)
        #expect(await Self.rejection(Self.data("\(parts[0]).\(forged).\(parts[2])"))?.reason == .badSignature)
    }

    // FR-NEG: FRAPushHandlerTests.swift test_05..10.
    @Test func frNEGPeek() throws {
        // test_05: no messageId.
        #expect(throws: PushRejection.self) { try ForgeRockPush.peek(["message": FRVectors.negMissingMessageId]) }
        // test_06: not a JWT.
        #expect(throws: PushRejection.self) { try ForgeRockPush.peek(Self.data("non-jwt", messageId: FRVectors.negMessageId)) }
        // test_08 / test_10: no `u` / no `c`.
        for token in [FRVectors.negMissingU, FRVectors.negMissingC] {
            #expect(throws: PushRejection.self) { try ForgeRockPush.peek(Self.data(token, messageId: FRVectors.negMessageId)) }
        }
        // A mechanism id that is not a string, or a payload that is no object, names no account.
        func unsigned(_ payload: String) -> String {
            func segment(_ text: String) -> String {
                Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                    .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            }
            return segment(#"{"alg":"HS256","typ":"JWT"}"#) + "." + segment(payload) + ".c2ln"
        }
        for payload in [#"{"u":5,"c":"Y2hhbGxlbmdl"}"#, #"["u","c"]"#, #"{"u":"","c":"Y2hhbGxlbmdl"}"#] {
            #expect(throws: PushRejection.self, "\(payload)") {
                try ForgeRockPush.peek(Self.data(unsigned(payload), messageId: FRVectors.negMessageId))
            }
        }
        #expect(try ForgeRockPush.peek(Self.data(unsigned(#"{"u":"mech","c":"Y2hhbGxlbmdl","x":[1,{"y":null}]}"#),
                                                 messageId: FRVectors.negMessageId)).mechanismUid == "mech")
        // test_07 / test_09 (no `l` / no `t`) are acceptable under our rules (protocols.md §1.8.3).
        for token in [FRVectors.negMissingL, FRVectors.negMissingT] {
            #expect(try ForgeRockPush.peek(Self.data(token, messageId: FRVectors.negMessageId)).mechanismUid == FRVectors.negUID)
        }
    }

    @Test func frNEGVerify() async throws {
        func resigned(_ token: String) -> [String: String] {
            Self.data(TestJWT.resign(token, key: FRVectors.msg1Secret), messageId: FRVectors.negMessageId)
        }
        #expect(await Self.rejection(["message": TestJWT.resign(FRVectors.negMissingMessageId, key: FRVectors.msg1Secret)])?
            .reason == .malformed)
        #expect(await Self.rejection(Self.data("non-jwt"))?.reason == .malformed)
        #expect(await Self.rejection(resigned(FRVectors.negMissingU))?.reason == .malformed)
        #expect(await Self.rejection(resigned(FRVectors.negMissingC))?.reason == .malformed)
        // Missing `l`: accepted, no cookie. Missing `t`: accepted with 120 s.
        let noCookie = try await ForgeRockPush.verify(resigned(FRVectors.negMissingL), secret: FRVectors.msg1Secret, receivedAt: Self.now)
        #expect(noCookie.cookie == nil && noCookie.ttlSeconds == 120)
        let noTTL = try await ForgeRockPush.verify(resigned(FRVectors.negMissingT), secret: FRVectors.msg1Secret, receivedAt: Self.now)
        #expect(noTTL.ttlSeconds == 120 && noTTL.cookie == "amlbcookie=01")
        // The literal tokens, whose key is unknown, do not verify under ours.
        #expect(await Self.rejection(Self.data(FRVectors.negMissingL))?.reason == .badSignature)
    }

    @Test func claimRules() async throws {
        func verify(_ claims: ForgeRockNotificationClaims, at date: Date = Self.now) async throws -> ForgeRockNotification {
            let token = try await ForgeRockServer.signNotification(claims, secret: FRVectors.msg1Secret)
            return try await ForgeRockPush.verify(Self.data(token), secret: FRVectors.msg1Secret, receivedAt: date)
        }
        var claims = ForgeRockNotificationClaims(challenge: FRVectors.msg1Challenge, ttl: "30", mechanismUid: "u-1",
                                                 issuedAtMillis: "1589138690000", pushType: "challenge",
                                                 numbers: "34, 56,82", message: "Sign in to Acme?",
                                                 contextInfo: #"{"userAgent":"curl/8","location":{"latitude":49.22,"longitude":-123.11}}"#)
        let challenge = try await verify(claims)
        #expect(challenge.pushType == .challenge && challenge.numbers == ["34", "56", "82"])
        #expect(challenge.issuedAt == Date(timeIntervalSince1970: 1_589_138_690))
        #expect(challenge.expiresAt == Date(timeIntervalSince1970: 1_589_138_720))
        #expect(challenge.text == "Sign in to Acme?")
        #expect(challenge.contextInfo?["userAgent"] == .string("curl/8"))

        // Expired: past i + t.
        let late = Date(timeIntervalSince1970: 1_589_138_721)
        await #expect(throws: PushRejection.self) { try await verify(claims, at: late) }
        #expect(await Self.rejection(Self.data(try await ForgeRockServer.signNotification(claims, secret: FRVectors.msg1Secret)),
                                     at: late)?.reason == .expired)

        claims.numbers = nil
        await #expect(throws: PushRejection.self) { try await verify(claims) }  // challenge without `n`
        claims.pushType = "something-new"
        #expect(try await verify(claims).pushType == .default)
        claims.pushType = "biometric"
        #expect(try await verify(claims).pushType == .biometric)
        claims.contextInfo = "not json"
        #expect(try await verify(claims).contextInfo == .string("not json"))
        for bad in [ForgeRockNotificationClaims(challenge: "%%%", mechanismUid: "u"),
                    ForgeRockNotificationClaims(challenge: FRVectors.msg1Challenge, ttl: "soon", mechanismUid: "u"),
                    ForgeRockNotificationClaims(challenge: FRVectors.msg1Challenge, ttl: "-5", mechanismUid: "u"),
                    ForgeRockNotificationClaims(challenge: FRVectors.msg1Challenge, mechanismUid: "u", cookie: "***"),
                    ForgeRockNotificationClaims(challenge: FRVectors.msg1Challenge, mechanismUid: "u", issuedAtMillis: "yesterday")] {
            let token = try await ForgeRockServer.signNotification(bad, secret: FRVectors.msg1Secret)
            #expect(await Self.rejection(Self.data(token))?.reason == .malformed)
        }
    }

    /// Issue 12: nonsense times are refused; a huge but readable ttl is accepted here and bounded by the draft.
    @Test func timesFromTheWireAreBounded() async throws {
        func notification(ttl: String? = nil, issuedAt: String? = nil) async -> Result<ForgeRockNotification, PushRejection> {
            let claims = ForgeRockNotificationClaims(challenge: FRVectors.msg1Challenge, ttl: ttl, mechanismUid: "u-1",
                                                     issuedAtMillis: issuedAt)
            let token = try! await ForgeRockServer.signNotification(claims, secret: FRVectors.msg1Secret)
            do { return .success(try await ForgeRockPush.verify(Self.data(token), secret: FRVectors.msg1Secret, receivedAt: Self.now)) }
            catch { return .failure(error) }
        }
        for issuedAt in [String(Int64.max), String(Int64.min), "-1"] {
            guard case .failure(let rejection) = await notification(issuedAt: issuedAt) else {
                Issue.record("i=\(issuedAt) accepted"); continue
            }
            #expect(rejection.reason == .malformed && rejection.message.contains("between 1970 and 9999"))
        }
        for ttl in ["300000000000", String(Int64.max)] {
            let draft = try await notification(ttl: ttl).get().approvalDraft(accountId: "acc_1", issuer: "Acme", accountName: "a")
            #expect(draft.bounded(receivedAt: Self.now).expiresAt == Self.now.addingTimeInterval(ApprovalDraft.maximumLifetime))
        }
    }

    /// Issue 12: a challenge offers a handful of short numbers, as PlusAuth's code contexts do.
    @Test func challengeNumbersAreCapped() async throws {
        func rejection(numbers: String) async throws -> PushRejection? {
            let claims = ForgeRockNotificationClaims(challenge: FRVectors.msg1Challenge, mechanismUid: "u-1",
                                                     pushType: "challenge", numbers: numbers)
            return await Self.rejection(Self.data(try await ForgeRockServer.signNotification(claims, secret: FRVectors.msg1Secret)))
        }
        #expect(try await rejection(numbers: (1...10).map(String.init).joined(separator: ",")) == nil)
        #expect(try await rejection(numbers: (1...700).map(String.init).joined(separator: ","))?.reason == .malformed)
        #expect(try await rejection(numbers: "12," + String(repeating: "9", count: 17))?.reason == .malformed)
    }

    /// Issue 12: the same signed JWT resent under another (unsigned) messageId is the same sign-in.
    @Test func replayKeyIsTheSignedChallengeNotTheMessageId() async throws {
        func draft(messageId: String) async throws -> ApprovalDraft {
            try await ForgeRockPush.verify(Self.data(FRVectors.msg1, messageId: messageId), secret: FRVectors.msg1Secret,
                                           receivedAt: Self.now)
                .approvalDraft(accountId: "acc_1", issuer: "Acme", accountName: "a")
        }
        #expect(try await draft(messageId: "AUTHENTICATE:one").dedupeKey == draft(messageId: "AUTHENTICATE:two").dedupeKey)
    }

    // protocols.md §1.3: every claim is a JSON string; a number where a string belongs is refused.
    @Test func nonStringClaimIsMalformed() async {
        let payload = TestJWT.payloadSegment(#"{"c":"lYmfePS9eb++1kio2IIJAtwUWWCcZCs+BSgKPjZKN28=","t":120,"u":"x"}"#)
        let token = TestJWT.sign(header: TestJWT.hs256Header, payload: payload, key: FRVectors.msg1Secret)
        #expect(await Self.rejection(Self.data(token))?.reason == .malformed)
    }

    @Test func shortStoredSecretFailsClosed() async {
        #expect(await Self.rejection(Self.data(FRVectors.msg1), secret: Data("testsecret".utf8))?.reason == .badSignature)
    }
}
