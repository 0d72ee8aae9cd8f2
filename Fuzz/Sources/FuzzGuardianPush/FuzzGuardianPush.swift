import Foundation
import FuzzSupport
@testable import PushAgentCore

@_cdecl("FuzzGuardianPush_main")
func fuzzMain(_ argc: Int32, _ argv: FuzzArguments) -> Int32 { FuzzDriver.run(argc, argv, testGuardianPush) }

/// A Guardian push's flat data map (`key=value` lines) as anyone who can send to the device can write it: nothing in
/// it is signed, so everything past routing is reached. Read, made an approval, its answer context read back, and
/// the answer's claims built for both decisions.
func testGuardianPush(_ bytes: Data) {
    let data = FuzzInput.pushData(bytes)
    guard PushRouter.claimants(data).contains(.guardian),
          let push = try? GuardianPush.decode(data, receivedAt: FuzzClock.receivedAt) else { return }
    _ = try? push.approvalDraft(accountId: "acc_fuzz", issuer: "Fuzz", accountName: "fuzz@example.com")
    if let context = try? push.answerContext() { _ = try? GuardianNotification(answerContext: context) }
    for decision in [AnswerDecision.approve(number: nil), .deny(reason: .fraud)] {
        _ = GuardianAnswer.claims(for: push, credentials: FuzzFixtures.guardianCredentials, decision: decision,
                                  at: FuzzClock.receivedAt)
    }
}
