import Foundation
import Testing
@testable import PushAgentCore

/// Contexts signed in the test with generated keys (PlusAuth publishes no vectors, protocols.md §2.5), in the
/// shape of the docs' claim skeleton.
enum PlusAuthSamples {
    static let iat = Date(timeIntervalSince1970: 1_702_243_057)
    static let exp = Date(timeIntervalSince1970: 1_702_250_257)
    static let now = iat.addingTimeInterval(10)

    /// protocols.md §2.3, verbatim apart from the signing.
    static let docClaimsJSON = #"""
    { "exp": 1702250257, "iat": 1702243057, "context_token": "CONTEXT_TOKEN",
      "resolve_url": "https://mytenant.plusauth.com/push-authenticator/resolve",
      "settings": {"bind_sim": false},
      "info": {"application": "Application Name", "ip": "127.0.0.1", "user_identifier": "john@doe.com",
               "agent": {"ua": "", "browser": {"name":"","version":"","major":""}, "cpu": {"architecture": ""},
                         "device": {"type":"","vendor":"","model":""}, "engine": {"name":"","version":""},
                         "os": {"name":"","version":""}},
               "location": {"city":"Istanbul","country":"TUR","postal_code":"34000",
                            "coordinates": {"accuracy_radius":1,"latitude":41.091384,"longitude":29.062315,
                                            "time_zone":"Europe/Istanbul"}}},
      "type": "code", "values": ["83","21","12"] }
    """#

    static var docClaims: PlusAuthContextClaims {
        try! JSONDecoder().decode(PlusAuthContextClaims.self, from: Data(docClaimsJSON.utf8))
    }

    static func sign(_ claims: PlusAuthContextClaims, _ key: PlusAuthJWK,
                     _ algorithm: PlusAuthAlgorithm = .es256) async throws -> [String: String] {
        ["context": try await PlusAuthServer.signContext(claims, privateKey: key, algorithm: algorithm)]
    }

    static func candidate(_ key: PlusAuthJWK, _ algorithm: PlusAuthAlgorithm = .es256, id: String = "acc_1")
        -> PlusAuthPush.Candidate {
        .init(accountId: id, key: key.publicKey, algorithm: algorithm)
    }
}

@Suite struct PlusAuthPushTests {
    typealias S = PlusAuthSamples

    static func rejection(_ data: [String: String], _ candidates: [PlusAuthPush.Candidate],
                          at date: Date = S.now) async -> PushRejection? {
        do {
            _ = try await PlusAuthPush.verify(data, candidates: candidates, receivedAt: date)
            return nil
        } catch {
            return error
        }
    }

    @Test func docSkeletonVerifies() async throws {
        let key = try PlusAuthKeys.generate(.es256)
        let data = try await S.sign(S.docClaims, key)
        #expect(PushRouter.route(data) == .plusauth)
        let (account, challenge) = try await PlusAuthPush.verify(data, candidates: [S.candidate(key)], receivedAt: S.now)
        #expect(account == "acc_1")
        #expect(challenge.contextToken == "CONTEXT_TOKEN")
        #expect(challenge.kind == .code && challenge.values == ["83", "21", "12"])
        #expect(challenge.resolveURL == "https://mytenant.plusauth.com/push-authenticator/resolve")
        #expect(challenge.issuedAt == S.iat && challenge.expiresAt == S.exp)
        #expect(!challenge.bindingRequested)
        #expect(try PlusAuthChallenge(answerContext: challenge.answerContext()) == challenge)
    }

    @Test func theSigningAccountIsFoundAmongSeveral() async throws {
        let (es, rs, other) = try (PlusAuthKeys.generate(.es256), PlusAuthKeys.generate(.rs256), PlusAuthKeys.generate(.es256))
        let candidates = [S.candidate(other, id: "acc_other"), S.candidate(rs, .rs256, id: "acc_rs"), S.candidate(es, id: "acc_es")]
        #expect(try await PlusAuthPush.verify(S.sign(S.docClaims, es), candidates: candidates, receivedAt: S.now).accountId == "acc_es")
        #expect(try await PlusAuthPush.verify(S.sign(S.docClaims, rs, .rs256), candidates: candidates, receivedAt: S.now).accountId == "acc_rs")
    }

    @Test func nestedObjectsMayBeMissingOrNull() async throws {
        let key = try PlusAuthKeys.generate(.es256)
        let json = #"{"exp": 1702250257, "context_token": "T", "type": "prompt", "settings": null, "info": null, "values": null}"#
        var claims = try JSONDecoder().decode(PlusAuthContextClaims.self, from: Data(json.utf8))
        var (_, challenge) = try await PlusAuthPush.verify(S.sign(claims, key), candidates: [S.candidate(key)], receivedAt: S.now)
        #expect(challenge.kind == .prompt && challenge.values == nil && challenge.info == nil && challenge.resolveURL == nil)
        #expect(challenge.issuedAt == S.now, "no iat: issued at receipt")
        claims.info = .object(["agent": .null, "location": .object(["city": .null])])
        claims.settings = .init(bindSim: nil)
        (_, challenge) = try await PlusAuthPush.verify(S.sign(claims, key), candidates: [S.candidate(key)], receivedAt: S.now)
        #expect(!challenge.bindingRequested)
    }

    @Test func wrongKeyTamperedAndUnknownAreRefused() async throws {
        let key = try PlusAuthKeys.generate(.es256)
        let data = try await S.sign(S.docClaims, key)
        let stranger = try PlusAuthKeys.generate(.es256)
        #expect(await Self.rejection(data, [S.candidate(stranger)])?.reason == .badSignature)
        #expect(await Self.rejection(data, [])?.reason == .unknownAccount)

        var tampered = S.docClaims
        tampered.values = ["99", "98", "97"]
        let parts = data["context"]!.split(separator: ".")
        let forged = [parts[0], Substring(try JSONEncoder().encode(tampered).base64URLUnpadded), parts[2]].joined(separator: ".")
        let rejection = await Self.rejection(["context": forged], [S.candidate(key)])
        #expect(rejection?.reason == .badSignature)
        #expect(rejection?.message == "PlusAuth context: the signature matches none of the 1 enrolled PlusAuth account key(s) for ES256")
    }

    @Test func onlyTheEnrolledAlgorithmIsAccepted() async throws {
        let key = try PlusAuthKeys.generate(.es256)
        let rsa = try PlusAuthKeys.generate(.rs256)
        // An RS256 context for an account enrolled with ES256, even one its RSA key would verify.
        let rejection = await Self.rejection(try await S.sign(S.docClaims, rsa, .rs256), [S.candidate(key)])
        #expect(rejection?.reason == .algorithmNotAllowed)
        #expect(rejection?.message == "PlusAuth context: JWT algorithm 'RS256' is not allowed (the enrolled accounts use ES256)")
        // `alg: none` and HS256 (a public key used as an HMAC secret) never reach a key.
        let payload = try JSONEncoder().encode(S.docClaims).base64URLUnpadded
        for header in [#"{"alg":"none"}"#, #"{"alg":"HS256","typ":"JWT"}"#] {
            let token = "\(Data(header.utf8).base64URLUnpadded).\(payload).c2ln"
            #expect(await Self.rejection(["context": token], [S.candidate(key)])?.reason == .algorithmNotAllowed)
        }
    }

    @Test func timesAreCheckedWithASmallSkew() async throws {
        let key = try PlusAuthKeys.generate(.es256)
        let data = try await S.sign(S.docClaims, key)
        let expired = await Self.rejection(data, [S.candidate(key)], at: S.exp.addingTimeInterval(PlusAuthPush.clockSkew))
        #expect(expired?.reason == .expired)
        #expect(expired?.message == "PlusAuth context expired at 2023-12-10T23:17:37Z")
        #expect(await Self.rejection(data, [S.candidate(key)], at: S.exp.addingTimeInterval(PlusAuthPush.clockSkew - 1)) == nil)
        // iat a little ahead of this clock is fine; far ahead is not.
        #expect(await Self.rejection(data, [S.candidate(key)], at: S.iat.addingTimeInterval(-PlusAuthPush.clockSkew)) == nil)
        let future = await Self.rejection(data, [S.candidate(key)], at: S.iat.addingTimeInterval(-600))
        #expect(future?.reason == .malformed)
        #expect(future?.message == "PlusAuth context: claim 'iat' is 600 s in the future; check this machine's clock")
    }

    /// Issue 12: a validly signed `iat: 1e300` trapped an Int conversion and aborted the daemon at every restart.
    @Test(arguments: [(1e300, nil), (nil, 1e300), (-1e300, nil), (nil, -1e300), (1e300, 1e300)] as [(Double?, Double?)])
    func nonsenseTimesAreMalformedNotFatal(exp: Double?, iat: Double?) async throws {
        let key = try PlusAuthKeys.generate(.es256)
        var claims = S.docClaims
        if let exp { claims.exp = exp }
        claims.iat = iat ?? claims.iat
        let rejection = await Self.rejection(try await S.sign(claims, key), [S.candidate(key)])
        #expect(rejection?.reason == .malformed)
        #expect(rejection?.message.contains("is not a time between 1970 and 9999") == true, "\(rejection?.message ?? "")")
    }

    /// Issue 12: ECDSA's (r, n - s) twin of a signature is accepted, as PlusAuth's peers (OpenSSL, which neither
    /// makes nor demands low-S signatures) accept it; it cannot make a second approval, because the replay key is
    /// the signed context token, never the signature bytes.
    @Test func highSTwinOfASignatureIsTheSameSignIn() async throws {
        let key = try PlusAuthKeys.generate(.es256)
        let token = try #require(try await S.sign(S.docClaims, key)["context"])
        let parts = token.split(separator: ".").map(String.init)
        var signature = try #require(LenientBase64.decode(parts[2]))
        let order: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                              0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51]
        var borrow = 0
        for index in (0..<32).reversed() {
            let difference = Int(order[index]) - Int(signature[32 + index]) - borrow
            signature[32 + index] = UInt8((difference + 256) % 256)
            borrow = difference < 0 ? 1 : 0
        }
        let twin = [parts[0], parts[1], signature.base64URLUnpadded].joined(separator: ".")
        #expect(twin != token)
        let original = try await PlusAuthPush.verify(["context": token], candidates: [S.candidate(key)], receivedAt: S.now)
        let malleated = try await PlusAuthPush.verify(["context": twin], candidates: [S.candidate(key)], receivedAt: S.now)
        #expect(malleated.challenge.dedupeKey == original.challenge.dedupeKey)
    }

    @Test func unusableContextsAreMalformed() async throws {
        let key = try PlusAuthKeys.generate(.es256)
        let cases: [((inout PlusAuthContextClaims) -> Void, String)] = [
            ({ $0.exp = nil }, "claim 'exp' (expiry) is missing"),
            ({ $0.contextToken = nil }, "claim 'context_token' is missing or longer than 2048 characters"),
            ({ $0.type = "biometric" }, "claim 'type' must be 'code' or 'prompt', not 'biometric'"),
            ({ $0.type = nil }, "claim 'type' must be 'code' or 'prompt', not '(missing)'"),
            ({ $0.values = [] }, "a 'code' context needs 'values': 1 to 10 short non-empty strings"),
            ({ $0.values = nil }, "a 'code' context needs 'values': 1 to 10 short non-empty strings"),
            ({ $0.resolveURL = "file:///etc/passwd" }, "claim 'resolve_url' must be an http(s) URL"),
        ]
        for (change, message) in cases {
            var claims = S.docClaims
            change(&claims)
            let rejection = await Self.rejection(try await S.sign(claims, key), [S.candidate(key)])
            #expect(rejection == PushRejection(.malformed, "PlusAuth context: " + message))
        }
    }

    @Test func aMissingOrBrokenContextIsMalformed() async throws {
        let key = try PlusAuthKeys.generate(.es256)
        #expect(await Self.rejection(["context": ""], [S.candidate(key)]) == PushRejection(.malformed, "PlusAuth context: 'context' (the JWT) is missing"))
        #expect(await Self.rejection(["context": "not.a-jwt"], [S.candidate(key)])?.reason == .malformed)
    }
}
