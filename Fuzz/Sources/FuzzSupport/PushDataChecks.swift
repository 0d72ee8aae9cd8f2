import Foundation
@testable import PushAgentCore

/// What the daemon does with a push's `data` before it knows the push is genuine: route it to a dialect, read
/// what that dialect reads unverified to find the account, and verify it against the account's key (here the
/// fuzz keys, so nearly every input takes the forged-push path). Shared by the routing and relay-poll targets.
public enum PushDataChecks {
    public static func exercise(_ data: [String: String]) {
        switch PushRouter.route(data) {
        case .hyphen?: hyphen(data)
        case .forgerock?:
            _ = try? ForgeRockPush.peek(data)
            _ = runBlocking {
                try? await ForgeRockPush.verify(data, secret: FuzzFixtures.forgeRockSecret, receivedAt: FuzzClock.receivedAt)
            }
        case .plusauth?:
            _ = runBlocking {
                try? await PlusAuthPush.verify(data, candidates: FuzzFixtures.plusAuthCandidates, receivedAt: FuzzClock.receivedAt)
            }
        case .privacyidea?:
            _ = try? PrivacyIDEAPush.peekSerial(data)
            _ = try? PrivacyIDEAPush.verify(data, serverKey: FuzzFixtures.privacyIDEAServerKey, receivedAt: FuzzClock.receivedAt)
        default: break
        }
    }

    /// Hyphen pushes are not signed: decoding is all there is, then the handler's reading of it for an account.
    public static func hyphen(_ data: [String: String]) {
        guard let (handler, payload) = try? HyphenPush.decode(data) else { return }
        _ = handler.ownDevice(in: payload.twoFactorAuth)
        _ = try? handler.effect(of: payload, account: FuzzFixtures.account(.hyphen), receivedAt: FuzzClock.receivedAt)
    }
}
