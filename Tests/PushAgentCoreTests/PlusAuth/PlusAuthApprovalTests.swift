import Foundation
import Testing
@testable import PushAgentCore

@Suite struct PlusAuthApprovalTests {
    typealias S = PlusAuthSamples

    static func challenge(_ claims: PlusAuthContextClaims) throws -> PlusAuthChallenge {
        try PlusAuthPush.challenge(from: claims, receivedAt: S.now)
    }

    @Test func codeContextIsANumberApproval() throws {
        let draft = try Self.challenge(S.docClaims).approvalDraft(accountId: "acc_1", issuer: "MyApp", accountName: "john")
        #expect(draft.provider == .plusauth && draft.accountId == "acc_1")
        #expect(draft.kind == .number && draft.numbers == ["83", "21", "12"])
        #expect(draft.title == "Sign-in to Application Name")
        #expect(draft.message == "Did you try to sign in as john@doe.com?")
        #expect(draft.context.app == "Application Name" && draft.context.user == "john@doe.com")
        #expect(draft.context.ip == "127.0.0.1")
        #expect(draft.context.location == "Istanbul, TUR")
        #expect(draft.context.userAgent == nil, "the sample's agent is all empty strings")
        #expect(draft.context.raw == S.docClaims.info)
        #expect(draft.requestedAt == S.iat)
        #expect(draft.expiresAt == S.exp.addingTimeInterval(PlusAuthPush.clockSkew))
        #expect(draft.dedupeKey.count == 64 && !draft.dedupeKey.contains("CONTEXT_TOKEN"), "the token is hashed")
        #expect(try PlusAuthChallenge(answerContext: draft.answerContext).contextToken == "CONTEXT_TOKEN")
    }

    @Test func promptContextWithoutInfoFallsBackToTheAccount() throws {
        var claims = S.docClaims
        claims.type = "prompt"
        claims.info = nil
        let draft = try Self.challenge(claims).approvalDraft(accountId: "acc_1", issuer: "MyApp", accountName: "john")
        #expect(draft.kind == .prompt && draft.numbers == nil)
        #expect(draft.title == "Sign-in to MyApp" && draft.context.user == "john")
        #expect(draft.context.location == nil && draft.context.ip == nil)
    }

    @Test func browserAndSystemComeFromTheAgent() throws {
        var claims = S.docClaims
        claims.info = PlusAuthServer.info(application: "Wiki", user: "bob", ip: "10.0.0.1", city: "", country: "DEU",
                                          browser: ("Firefox", "121.0"), os: ("Ubuntu", "22.04"))
        var draft = try Self.challenge(claims).approvalDraft(accountId: "a", issuer: "i", accountName: "n")
        #expect(draft.context.userAgent == "Firefox 121.0 on Ubuntu 22.04")
        #expect(draft.context.location == "DEU")
        claims.info = .object(["agent": .object(["ua": .string("curl/8.0"), "browser": .null, "os": .string("odd")])])
        draft = try Self.challenge(claims).approvalDraft(accountId: "a", issuer: "i", accountName: "n")
        #expect(draft.context.userAgent == "curl/8.0", "odd shapes fall back to the raw user agent")
    }

    @Test func theSameSignInIsOneApproval() throws {
        var resent = S.docClaims
        resent.iat = S.docClaims.iat! + 5
        #expect(try Self.challenge(resent).dedupeKey == Self.challenge(S.docClaims).dedupeKey)
        resent.contextToken = "ANOTHER"
        #expect(try Self.challenge(resent).dedupeKey != Self.challenge(S.docClaims).dedupeKey)
    }
}
