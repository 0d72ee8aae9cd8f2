import ClusterHarness
import ControlWire
import Foundation
import PushAgentCore
import PushSim
import Testing

/// Both encodings a data stanza comes in reach the agent: `aes128gcm` marked as Chromium's GCM encryption provider
/// reads it (before, such a push was acknowledged and dropped as "no encryption salt or crypto-key dh") and FCM's
/// usual `aesgcm`; from pushsim's emulator and from PyPI http_ece, the encoder pywebpush uses, which nobody here
/// wrote. A stanza that cannot be read is acknowledged and kept in `pushctl history` with its sender and why.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct FCMEncodingTests {
    private static let encrypt = Binaries.packageRoot().appendingPathComponent("scripts/webpush_encrypt.py").path
    /// Runs its arguments with the python of firebase-messaging's venv, which has http_ece (made once, then reused).
    private static let venvPython = Binaries.packageRoot().appendingPathComponent("scripts/fcm-receiver.sh").path

    @Test func anAes128gcmPushFromTheEmulatorIsApprovedEndToEnd() async throws {
        try await FCMEndToEndTests.withFCMCluster { cluster, emulator in
            #expect(try await emulator.useContentCoding("aes128gcm").status == 200)
            let sim = SimAdminClient(baseURL: cluster.simURL)
            #expect(try await cluster.pushctl(["enroll", "--fcm-app", "default", try await sim.enrollURI()]).status == 0)
            _ = try await sim.push(.init(message: "Sealed as aes128gcm"))
            var pending: Approval?
            try await eventually("the aes128gcm push is pending") {
                pending = try await cluster.client.approvals(state: .pending).first { $0.message == "Sealed as aes128gcm" }
                return pending != nil
            }
            let approval = try #require(pending)
            #expect(try await cluster.pushctl(["approve", approval.id]).status == 0)
            try await eventually("the provider got the answer") {
                try await cluster.client.approvals(state: nil).first { $0.id == approval.id }?.state == .approved
            }
        }
    }

    /// http_ece encrypts for the registration's keys; the data it sealed (no provider's push, so refused by the
    /// router) shows in history with its own keys, which only a decryption can have read.
    @Test(arguments: ["aes128gcm", "aesgcm"])
    func aPushEncryptedByHttpEceIsRead(coding: String) async throws {
        try await FCMEndToEndTests.withFCMCluster { cluster, emulator in
            let token = try await cluster.client.fcmCheck().token
            let keys = try await emulator.webPushKeys(token: token)
            let plaintext = #"{"data":{"sealedBy":"http_ece","coding":"\#(coding)"},"from":"424242","priority":"high"}"#
            let sealed = try await CommandResult.run(Self.venvPython, ["python", Self.encrypt, coding, keys.p256dh, keys.auth],
                                                     input: plaintext)
            #expect(sealed.status == 0, "\(sealed.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(sealed.stdout.utf8)) as? [String: Any])
            let raw = try #require((json["raw_data"] as? String).flatMap { Data(base64Encoded: $0) })
            let appData = try #require(json["app_data"] as? [String: String])
            #expect(try await emulator.deliver(rawData: raw, appData: appData, to: token, from: "424242").status == 200)
            var refused: RejectedPush?
            try await eventually("the decrypted push is in history") {
                refused = try await cluster.client.history().compactMap(\.rejectedPush).first { $0.reason == .unknownDialect }
                return refused != nil
            }
            let entry = try #require(refused)
            #expect(entry.message.contains("[coding, sealedBy]"), "\(entry.message)")
            try await eventually("the emulator got the acknowledgement") {
                emulator.process.text.contains("fcm ack:")
            }
        }
    }

    @Test func aStanzaThatCannotBeReadIsAcknowledgedAndListedInHistory() async throws {
        try await FCMEndToEndTests.withFCMCluster { cluster, emulator in
            let token = try await cluster.client.fcmCheck().token
            let appData = ["content-encoding": "aes128gcm"]
            #expect(try await emulator.deliver(rawData: Data(repeating: 7, count: 40), appData: appData, to: token,
                                               from: "987654321").status == 200)
            var listed: HistoryEntry?
            try await eventually("the unreadable push is in history") {
                listed = try await cluster.client.history().first { $0.rejectedPush?.reason == .malformed }
                return listed != nil
            }
            let entry = try #require(listed)
            let push = try #require(entry.rejectedPush)
            #expect(push.message.contains("an FCM message from sender 987654321 (FCM app default) cannot be read"),
                    "\(push.message)")
            #expect(push.relayMessageId?.hasPrefix("poll:fcm:0:") == true, "\(push.relayMessageId ?? "")")
            #expect(abs(entry.at.timeIntervalSinceNow) < 60)
            try await eventually("it was acknowledged, so Google stops resending it") {
                emulator.process.text.contains("1 acknowledged, 0 unacknowledged")
            }
            let shown = try await cluster.pushctl(["history"])
            #expect(shown.stdout.contains("sender 987654321"), "\(shown.stdout)")
        }
    }
}
