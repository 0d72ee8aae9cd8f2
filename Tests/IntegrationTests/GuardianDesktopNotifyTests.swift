import ClusterHarness
import ControlWire
import Foundation
import PushAgentCore
import PushSim
import Testing

/// A Guardian approval on a real desktop (Xvfb, a private session bus, dunst): Approve and Deny buttons, no
/// "Report fraud" (Guardian lacks that capability), and the Approve button's answer verifies at the tenant.
@Suite(.serialized, .timeLimit(.minutes(3)),
       .enabled(if: DesktopSession.missingPrograms.isEmpty, "needs \(DesktopSession.missingPrograms) (make deps installs them)"))
struct GuardianDesktopNotifyTests {
    @Test func aGuardianPromptHasApproveAndDenyButtonsAndApprovesAtTheTenant() async throws {
        try await GuardianEndToEndTests.withEnrolledCluster { cluster, sim, _, _ in
            try await DesktopNotifyTests.withNotifier(cluster) { desktop, _ in
                let push = try await sim.guardianPush(GuardianEndToEndTests.context)
                let shown = try await DesktopNotifyTests.notification(desktop, GuardianEndToEndTests.message)
                #expect(shown.appName == "pushagent" && shown.summary == "Sign-in to PushSim")
                #expect(shown.actionKeys == ["approve", "deny"], "no fraud button: Guardian lacks .fraudReport")
                #expect(shown.actionLabels == ["Approve", "Deny"])
                #expect(shown.body.contains("User: alice") && shown.body.contains("Location: Palermo, BA, Argentina"))
                #expect(shown.body.contains("Browser: Safari 17.2 on macOS 14.2"), "\(shown.body)")
                try await desktop.pressButton("Approve", onNotification: try #require(shown.id))
                let accepted = try await sim.guardianTransaction(push.transactionId, wait: 10)
                #expect(accepted.state == .accepted && accepted.verified)
                try await eventually("the notification is withdrawn") { desktop.closedIds().contains(shown.id!) }
                try await eventually("the result is shown") {
                    desktop.notifications().contains { $0.summary == "Sign-in approved" }
                }
            }
        }
    }
}
