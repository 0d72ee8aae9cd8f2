import ClusterHarness
import ControlWire
import Foundation
import PushAgentCore
import Testing

/// pushctl notify against a real desktop: Xvfb, a private session bus and dunst (DesktopSession), with the relay,
/// the daemon and pushsim. The notifications are read back from the bus, the buttons pressed through dunst.
@Suite(.serialized, .timeLimit(.minutes(3)),
       .enabled(if: DesktopSession.missingPrograms.isEmpty, "needs \(DesktopSession.missingPrograms) (make deps installs them)"))
struct DesktopNotifyTests {
    static func withDesktop(_ body: (Cluster, SimClient, DesktopSession, ManagedProcess) async throws -> Void) async throws {
        try await Cluster.run { cluster in
            try await cluster.startDaemon()
            let sim = SimClient(baseURL: cluster.simURL)
            let enroll = try await cluster.pushctl(["enroll", "-"], input: try await sim.enrollURI(account: "alice"))
            #expect(enroll.status == 0, "enroll: \(enroll.stderr)")
            let desktop = try await DesktopSession.start(directory: cluster.directory + "/desktop")
            let notifier = try ManagedProcess(name: "pushctl notify", executable: Binaries.path("pushctl"),
                                              arguments: ["--socket", cluster.socketPath, "notify"],
                                              environment: desktop.environment)
            do {
                _ = try await notifier.waitForLine(startingWith: "pushctl notify: connected to the notification server (with action buttons)")
                try await body(cluster, sim, desktop, notifier)
            } catch {
                print("pushctl notify said:\n\(notifier.text)")
                await notifier.stop()
                await desktop.stop()
                throw error
            }
            await notifier.stop()
            await desktop.stop()
        }
    }

    /// The notification for the push whose message is `message`, once the server has answered its Notify.
    static func notification(_ desktop: DesktopSession, _ message: String) async throws -> SeenNotification {
        var found: SeenNotification?
        try await eventually("a notification for '\(message)'") {
            found = desktop.notifications().first { $0.body.hasPrefix(message) && $0.id != nil }
            return found != nil
        }
        return try #require(found)
    }

    @Test func aNumberChallengeIsANotificationWhoseNumberButtonApproves() async throws {
        try await Self.withDesktop { cluster, sim, desktop, _ in
            let push = try await sim.push(type: "challenge", message: "Sign in to the wiki from Firefox on Linux?")
            let shown = try await Self.notification(desktop, "Sign in to the wiki from Firefox on Linux?")
            let numbers = try #require(push.numbers)
            #expect(shown.appName == "pushagent" && shown.summary.contains("PushSim"))
            #expect(shown.actionKeys == numbers.map { "number:\($0)" } + ["deny"], "a button per number, no plain Approve")
            #expect(shown.actionLabels == numbers + ["Deny"])
            #expect(shown.urgency == 2 && shown.resident && shown.expireTimeout == 0)
            #expect(shown.body.contains("User: alice"))

            try await desktop.pressButton(try #require(push.correctNumber), onNotification: try #require(shown.id))
            let answer = try await sim.answer(to: push.messageId)
            #expect(answer.outcome == "approved" && answer.verified && answer.number == push.correctNumber)
            try await eventually("the notification is withdrawn") { desktop.closedIds().contains(shown.id!) }
            try await eventually("the result is shown") { desktop.notifications().contains { $0.summary == "Sign-in approved" } }
        }
    }

    @Test func anApprovalAnsweredElsewhereClosesItsNotificationAndNothingShowsTwice() async throws {
        try await Self.withDesktop { cluster, sim, desktop, _ in
            _ = try await sim.push(message: "Deny me from the terminal")
            let shown = try await Self.notification(desktop, "Deny me from the terminal")
            #expect(shown.actionKeys == ["approve", "deny"])
            let approval = try #require(try await cluster.client.approvals(state: .pending).first)
            #expect(try await cluster.pushctl(["deny", approval.id]).status == 0)
            try await eventually("the notification is withdrawn") { desktop.closedIds().contains(shown.id!) }
            try await eventually("the result is shown") { desktop.notifications().contains { $0.summary == "Sign-in denied" } }

            _ = try await sim.push(message: "Still pending across a restart")
            _ = try await Self.notification(desktop, "Still pending across a restart")
            await cluster.daemon?.stop()
            _ = try await sim.push(message: "Sent while the daemon was down")
            try await cluster.startDaemon()
            _ = try await Self.notification(desktop, "Sent while the daemon was down")
            _ = try await sim.push(message: "After the restart")
            _ = try await Self.notification(desktop, "After the restart")
            for message in ["Still pending across a restart", "Sent while the daemon was down", "After the restart"] {
                #expect(desktop.notifications().filter { $0.body.hasPrefix(message) }.count == 1, "\(message): shown once")
            }
        }
    }

    @Test func afterTheSessionBusRestartsThePendingApprovalIsShownAgainAndAnswerable() async throws {
        try await Self.withDesktop { _, sim, desktop, notifier in
            let push = try await sim.push(message: "Pending while the bus restarts")
            _ = try await Self.notification(desktop, "Pending while the bus restarts")
            try await desktop.restartBus()
            var again: SeenNotification?
            try await eventually("the notifier shows it on the new server", timeout: .seconds(20)) {
                again = desktop.notifications().filter { $0.body.hasPrefix("Pending while the bus restarts") && $0.id != nil }.dropFirst().first
                return again != nil
            }
            #expect(notifier.text.components(separatedBy: "connected to the notification server").count == 3)
            try await desktop.pressButton("Approve", onNotification: try #require(again?.id))
            #expect(try await sim.answer(to: push.messageId).outcome == "approved")
        }
    }

    @Test func aPromptsApproveButtonApprovesAtTheProvider() async throws {
        try await Self.withDesktop { _, sim, desktop, notifier in
            let push = try await sim.push(message: "Approve me from the desktop")
            let shown = try await Self.notification(desktop, "Approve me from the desktop")
            try await desktop.pressButton("Approve", onNotification: try #require(shown.id))
            let answer = try await sim.answer(to: push.messageId)
            #expect(answer.outcome == "approved" && answer.verified)
            try await eventually("the notifier logs the answer") { notifier.text.contains("approved from the notification") }
        }
    }
}
