import Foundation
import FuzzSupport
import PushAgentCore

@_cdecl("FuzzPlusAuthSignedClaims_main")
func fuzzMain(_ argc: Int32, _ argv: FuzzArguments) -> Int32 { FuzzDriver.run(argc, argv, testPlusAuthSignedClaims) }

/// The input is the claims of a PlusAuth context, ES256-signed with the enrolled account's key, so hostile claims
/// (`iat: 1e300`, `exp` in year 10000, a thousand `values`) get past the signature. Past verification: the approval,
/// the stored answer context, and the answer's claims for both decisions.
func testPlusAuthSignedClaims(_ bytes: Data) {
    let data = ["context": SignedToken.es256(payload: bytes, key: FuzzFixtures.plusAuthKey)]
    guard let (_, challenge) = runBlocking({
        try? await PlusAuthPush.verify(data, candidates: FuzzFixtures.plusAuthCandidates, receivedAt: FuzzClock.receivedAt)
    }) else { return }
    let account = FuzzFixtures.account(.plusauth)
    _ = try? challenge.approvalDraft(accountId: account.id, issuer: account.issuer, accountName: account.name)
    if let context = try? challenge.answerContext() { _ = try? PlusAuthChallenge(answerContext: context) }
    for decision in [AnswerDecision.approve(number: challenge.values?.first), .deny(reason: nil)] {
        _ = try? PlusAuthAnswer.claims(for: challenge, decision: decision, at: FuzzClock.receivedAt)
    }
}
