import ClusterHarness
import ControlWire
import Foundation
import PushAgentCore
import PushSim
import Testing

/// Auth0 Guardian on FCM: the account enrolled with the FCM app's token (`pushctl enroll --fcm-app default`), pushsim's
/// Guardian sends its flat data map through pushsim's FCM emulator, which encrypts it for the agent's registration
/// and delivers it over MCS; the agent shows it and answers the tenant.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct GuardianFCMEndToEndTests {
    @Test func aGuardianPushSentThroughFCMIsApprovedAndTheAnswerVerifies() async throws {
        try await FCMEndToEndTests.withFCMCluster { cluster, emulator in
            let sim = SimAdminClient(baseURL: cluster.simURL)
            let (account, _) = try await GuardianEndToEndTests.enroll(cluster, sim, arguments: ["--fcm-app", "default"])
            #expect(account.provider == .guardian && account.fcmApp == "default")
            let fcmToken = try await cluster.client.fcmCheck().token
            let device = try #require(try await sim.guardianDevices().first)
            #expect(device.pushToken == fcmToken, "the FCM app's token went to Guardian")
            #expect(device.pushToken != (try await cluster.client.status().pushToken), "not the relay's")
            let accounts = try await cluster.pushctl(["accounts"])
            #expect(accounts.stdout.contains("fcm (default)"), "\(accounts.stdout)")

            let push = try await sim.guardianPush(GuardianEndToEndTests.context)
            let approval = try await GuardianEndToEndTests.pending(cluster)
            GuardianEndToEndTests.expectShowsTheContext(approval, account: account)
            #expect(emulator.process.text.contains("fcm send:"), "it went through the emulator, not the relay")
            let approve = try await cluster.pushctl(["approve", approval.id])
            #expect(approve.status == 0, "approve: \(approve.stderr)")
            let accepted = try await sim.guardianTransaction(push.transactionId, wait: 10)
            #expect(accepted.state == .accepted && accepted.verified && accepted.resolutions.map(\.status) == [204])

            // The same transaction through FCM again: the store's dedupe key, no second approval.
            _ = try await sim.guardianPush(.init(transactionId: push.transactionId))
            try await eventually("the resent push is seen and dropped") {
                cluster.daemon?.text.split(separator: "\n").contains {
                    $0.contains("duplicate push ignored") && $0.contains(approval.id)
                } == true
            }
            #expect(try await cluster.client.approvals().count == 1)

            let second = try await sim.guardianPush(GuardianEndToEndTests.context)
            var denyMe: Approval?
            try await eventually("the second push arrives through FCM") {
                denyMe = try await cluster.client.approvals(state: .pending).first
                return denyMe != nil
            }
            #expect(try await cluster.pushctl(["deny", try #require(denyMe).id]).status == 0)
            let rejected = try await sim.guardianTransaction(second.transactionId, wait: 10)
            #expect(rejected.state == .rejected && rejected.verified && rejected.reason == nil)
        }
    }
}
