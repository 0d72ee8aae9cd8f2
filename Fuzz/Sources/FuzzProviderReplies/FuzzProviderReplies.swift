import Foundation
import FuzzSupport
@testable import PushAgentCore

@_cdecl("FuzzProviderReplies_main")
func fuzzMain(_ argc: Int32, _ argv: FuzzArguments) -> Int32 { FuzzDriver.run(argc, argv, testProviderReplies) }

/// Replies the agent reads from providers' HTTP APIs (anything at the enrolled URL can answer). The first byte
/// picks the reply; a poll's challenges go on to verification, as the poller sends them.
func testProviderReplies(_ bytes: Data) {
    guard let (mode, body) = FuzzInput.mode(of: bytes, count: 6) else { return }
    switch mode {
    case 0:
        for challenge in (try? PrivacyIDEAPoll.challenges(from: body)) ?? [] {
            _ = try? PrivacyIDEAPush.verify(challenge, serverKey: FuzzFixtures.privacyIDEAServerKey, receivedAt: FuzzClock.receivedAt)
        }
    case 1: _ = try? PrivacyIDEAAnswer.reply(from: body)
    case 2: _ = try? PrivacyIDEAEnrollment.serverKey(from: body)
    case 3: _ = try? PrivacyIDEAPoll.confirmed(body, what: "token update")
    case 4:
        // A Hyphen 2FA request's status, made into the approval the user sees.
        guard let status = try? JSONDecoder().decode(Hyphen2FAStatus.self, from: body) else { return }
        _ = try? HyphenApproval.draft(for: status, account: FuzzFixtures.account(.hyphen), requestedAt: FuzzClock.receivedAt,
                                      expiresAt: HyphenTimestamp.parse(status.expiresAt) ?? FuzzClock.receivedAt)
    default:
        // The transaction an approval carries, and Hyphen's timestamps.
        let text = FuzzInput.text(body)
        _ = try? HyphenApprovalContext(twoFactorAuthId: "2fa", message: text).cadence()
        _ = HyphenTimestamp.parse(text)
    }
}
