import Foundation
import Testing
@testable import PushAgentCore

@Suite struct ForgeRockApprovalTests {
    static func notification(_ type: ForgeRockNotification.PushType, text: String? = nil, context: JSONValue? = nil,
                             userId: String? = nil) -> ForgeRockNotification {
        ForgeRockNotification(messageId: "AUTHENTICATE:abc", mechanismUid: "u-1", challenge: FRVectors.msg1Challenge,
                              ttlSeconds: 60, cookie: nil, issuedAt: Date(timeIntervalSince1970: 1000), text: text,
                              pushType: type, numbers: type == .challenge ? ["1", "2", "3"] : nil,
                              contextInfo: context, userId: userId)
    }

    @Test func defaultPush() throws {
        let draft = try Self.notification(.default).approvalDraft(accountId: "acc_1", issuer: "Acme", accountName: "alice")
        #expect(draft.provider == .forgerock && draft.accountId == "acc_1")
        #expect(draft.kind == .prompt && draft.numbers == nil)
        #expect(draft.title == "Sign-in to Acme")
        #expect(draft.message == "Did you try to sign in as alice?")
        #expect(draft.context == ApprovalContext(user: "alice"))
        #expect(draft.requestedAt == Date(timeIntervalSince1970: 1000) && draft.expiresAt == Date(timeIntervalSince1970: 1060))
        #expect(draft.dedupeKey.hasPrefix("challenge:") && !draft.dedupeKey.contains("AUTHENTICATE"))
        #expect(try ForgeRockNotification(answerContext: draft.answerContext) == Self.notification(.default))
    }

    @Test func kinds() throws {
        let challenge = try Self.notification(.challenge).approvalDraft(accountId: "a", issuer: "i", accountName: "n")
        #expect(challenge.kind == .number && challenge.numbers == ["1", "2", "3"])
        #expect(try Self.notification(.biometric).approvalDraft(accountId: "a", issuer: "i", accountName: "n").kind == .verify)
    }

    // protocols.md §1.3 `x` example.
    @Test func contextFromX() throws {
        let x = try JSONDecoder().decode(JSONValue.self, from: Data(
            #"{"location":{"latitude":49.22,"longitude":-123.11},"userAgent":"Mozilla/5.0","platform":"MacIntel"}"#.utf8))
        let draft = try Self.notification(.default, text: "Did you try to login?", context: x, userId: "user1")
            .approvalDraft(accountId: "a", issuer: "i", accountName: "alice")
        #expect(draft.message == "Did you try to login?")
        #expect(draft.context.user == "user1")
        #expect(draft.context.location == "49.22, -123.11")
        #expect(draft.context.userAgent == "Mozilla/5.0")
        #expect(draft.context.raw == x)
        let platformOnly = try Self.notification(.default, context: .object(["platform": .string("Linux x86_64")]))
            .approvalDraft(accountId: "a", issuer: "i", accountName: "alice")
        #expect(platformOnly.context.userAgent == "Linux x86_64" && platformOnly.context.location == nil)
    }
}
