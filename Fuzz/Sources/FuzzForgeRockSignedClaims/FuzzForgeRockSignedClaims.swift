import Foundation
import FuzzSupport
import PushAgentCore

@_cdecl("FuzzForgeRockSignedClaims_main")
func fuzzMain(_ argc: Int32, _ argv: FuzzArguments) -> Int32 { FuzzDriver.run(argc, argv, testForgeRockSignedClaims) }

/// The input is the claims of a ForgeRock push, HS256-signed with the account's secret: what a server holding the
/// secret (or a bug in one) can send. Past verification: the approval the user is shown, and the answer context the
/// store keeps and reads back.
func testForgeRockSignedClaims(_ bytes: Data) {
    let data = ["messageId": "fuzz-message", "message": SignedToken.hs256(payload: bytes, secret: FuzzFixtures.forgeRockSecret)]
    _ = try? ForgeRockPush.peek(data)
    guard let notification = runBlocking({
        try? await ForgeRockPush.verify(data, secret: FuzzFixtures.forgeRockSecret, receivedAt: FuzzClock.receivedAt)
    }) else { return }
    let account = FuzzFixtures.account(.forgerock)
    _ = try? notification.approvalDraft(accountId: account.id, issuer: account.issuer, accountName: account.name)
    if let context = try? notification.answerContext() { _ = try? ForgeRockNotification(answerContext: context) }
}
