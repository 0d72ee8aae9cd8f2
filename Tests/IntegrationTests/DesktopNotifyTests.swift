import ClusterHarness
import ControlWire
import Foundation
import PushAgentCore
import PushSim
import Testing

/// pushctl notify against a real desktop: Xvfb, a private session bus and dunst (DesktopSession), with the relay,
/// the daemon and pushsim. The notifications are read back from the bus, the buttons pressed through dunst.
@Suite(.serialized, .timeLimit(.minutes(3)),
       .enabled(if: DesktopSession.missingPrograms.isEmpty, "needs \(DesktopSession.missingPrograms) (make deps installs them)"))
struct DesktopNotifyTests {
    static func withDesktop(daemonSettings: [String: String] = [:],
                            _ body: (Cluster, SimAdminClient, DesktopSession, ManagedProcess) async throws -> Void) async throws {
        try await Cluster.run { cluster in
            try await cluster.startDaemon(extraEnvironment: daemonSettings)
            let sim = SimAdminClient(baseURL: cluster.simURL)
            let enroll = try await cluster.pushctl(["enroll", "-"], input: try await sim.enrollURI(.init(account: "alice")))
            #expect(enroll.status == 0, "enroll: \(enroll.stderr)")
            try await withNotifier(cluster) { desktop, notifier in try await body(cluster, sim, desktop, notifier) }
        }
    }

    /// A desktop session with `pushctl notify` connected to the cluster's daemon and to the session's notification
    /// server, stopped afterwards; what `pushctl notify` said is printed on failure.
    static func withNotifier(_ cluster: Cluster,
                             _ body: (DesktopSession, ManagedProcess) async throws -> Void) async throws {
        let desktop = try await DesktopSession.start(directory: cluster.directory + "/desktop")
        let notifier = try ManagedProcess(name: "pushctl notify", executable: Binaries.path("pushctl"),
                                          arguments: ["--socket", cluster.socketPath, "notify"],
                                          environment: desktop.environment)
        do {
            _ = try await notifier.waitForLine(startingWith: "pushctl notify: connected to the notification server (with action buttons)")
            try await body(desktop, notifier)
        } catch {
            print("pushctl notify said:\n\(notifier.text)")
            await notifier.stop()
            await desktop.stop()
            throw error
        }
        await notifier.stop()
        await desktop.stop()
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
            let push = try await sim.push(.init(type: "challenge", message: "Sign in to the wiki from Firefox on Linux?"))
            let shown = try await Self.notification(desktop, "Sign in to the wiki from Firefox on Linux?")
            let numbers = try #require(push.numbers)
            #expect(shown.appName == "pushagent" && shown.summary.contains("PushSim"))
            #expect(shown.actionKeys == numbers.map { "number:\($0)" } + ["deny"], "a button per number, no plain Approve")
            #expect(shown.actionLabels == numbers + ["Deny"])
            #expect(shown.urgency == 2 && shown.resident && shown.expireTimeout == 0)
            #expect(shown.body.contains("User: alice"))

            try await desktop.pressButton(try #require(push.correctNumber), onNotification: try #require(shown.id))
            let answer = try await sim.answer(to: push.messageId)
            #expect(answer.outcome == .approved && answer.verified && answer.number == push.correctNumber)
            try await eventually("the notification is withdrawn") { desktop.closedIds().contains(shown.id!) }
            try await eventually("the result is shown") { desktop.notifications().contains { $0.summary == "Sign-in approved" } }
        }
    }

    @Test func anApprovalAnsweredElsewhereClosesItsNotificationAndNothingShowsTwice() async throws {
        try await Self.withDesktop { cluster, sim, desktop, notifier in
            _ = try await sim.push(.init(message: "Deny me from the terminal"))
            let shown = try await Self.notification(desktop, "Deny me from the terminal")
            #expect(shown.actionKeys == ["approve", "deny"])
            let approval = try #require(try await cluster.client.approvals(state: .pending).first)
            #expect(try await cluster.pushctl(["deny", approval.id]).status == 0)
            try await eventually("the notification is withdrawn") { desktop.closedIds().contains(shown.id!) }
            try await eventually("the result is shown") { desktop.notifications().contains { $0.summary == "Sign-in denied" } }

            _ = try await sim.push(.init(message: "Still pending across a restart"))
            _ = try await Self.notification(desktop, "Still pending across a restart")
            await cluster.daemon?.stop()
            _ = try await sim.push(.init(message: "Sent while the daemon was down"))
            try await cluster.startDaemon()
            _ = try await Self.notification(desktop, "Sent while the daemon was down")
            try await eventually("the notifier says it is back") { notifier.text.contains("pushagentd: reconnected;") }
            _ = try await sim.push(.init(message: "After the restart"))
            _ = try await Self.notification(desktop, "After the restart")
            for message in ["Still pending across a restart", "Sent while the daemon was down", "After the restart"] {
                #expect(desktop.notifications().filter { $0.body.hasPrefix(message) }.count == 1, "\(message): shown once")
            }
        }
    }

    @Test func afterTheSessionBusRestartsThePendingApprovalIsShownAgainAndAnswerable() async throws {
        try await Self.withDesktop { _, sim, desktop, notifier in
            let push = try await sim.push(.init(message: "Pending while the bus restarts"))
            _ = try await Self.notification(desktop, "Pending while the bus restarts")
            try await desktop.restartBus()
            var again: SeenNotification?
            try await eventually("the notifier shows it on the new server", timeout: .seconds(20)) {
                again = desktop.notifications().filter { $0.body.hasPrefix("Pending while the bus restarts") && $0.id != nil }.dropFirst().first
                return again != nil
            }
            #expect(notifier.text.components(separatedBy: "connected to the notification server").count >= 3)
            try await desktop.pressButton("Approve", onNotification: try #require(again?.id))
            #expect(try await sim.answer(to: push.messageId).outcome == .approved)
        }
    }

    @Test func aPromptsApproveButtonApprovesAtTheProvider() async throws {
        try await Self.withDesktop { _, sim, desktop, notifier in
            let push = try await sim.push(.init(message: "Approve me from the desktop"))
            let shown = try await Self.notification(desktop, "Approve me from the desktop")
            try await desktop.pressButton("Approve", onNotification: try #require(shown.id))
            let answer = try await sim.answer(to: push.messageId)
            #expect(answer.outcome == .approved && answer.verified)
            try await eventually("the notifier logs the answer") { notifier.text.contains("approved from the notification") }
        }
    }

    /// Every Notify answered for the push whose message is `message`, in order.
    static func shown(_ desktop: DesktopSession, _ message: String) -> [SeenNotification] {
        desktop.notifications().filter { $0.body.hasPrefix(message) && $0.id != nil }
    }

    /// dunst restarted: nothing was shown again, a Notify that failed meanwhile was never retried, and answering one
    /// approval closed the old server's id, which in the new server was another pending sign-in.
    @Test func aRestartedNotificationServerShowsTheWaitingSignInsAgainAndClosesOnlyItsOwn() async throws {
        try await Self.withDesktop { cluster, sim, desktop, notifier in
            let messages = ["First waiting", "Second waiting", "Sent while the server was away"]
            // The old server's ids (11, 12) are ones the new server (1, 2, 3) never gives: closing by an old id
            // cannot pass for closing the right one.
            try await desktop.useUpIds(10)
            for message in messages.prefix(2) {
                _ = try await sim.push(.init(message: message))
                _ = try await Self.notification(desktop, message)
            }
            try await desktop.restartServer {
                _ = try await sim.push(.init(message: messages[2]))
                try await eventually("the notifier tried to show it") { notifier.text.contains("cannot show approval") }
            }
            try await eventually("the new server shows all three", timeout: .seconds(20)) {
                let shownAgain = Self.shown(desktop, messages[0]).count == 2 && Self.shown(desktop, messages[1]).count == 2
                    && Self.shown(desktop, messages[2]).count == 1
                guard shownAgain else { return false }
                return try await desktop.displayedCount() == 3
            }
            #expect(notifier.text.components(separatedBy: "connected to the notification server").count == 3,
                    "the new server's capabilities are read")
            let first = try #require(Self.shown(desktop, messages[0]).last?.id)
            #expect(first != Self.shown(desktop, messages[0]).first?.id)
            let closedBefore = desktop.closedIds()
            let pending = try await cluster.client.approvals(state: .pending)
            let firstApproval = try #require(pending.first { $0.message == messages[0] })
            #expect(try await cluster.pushctl(["deny", firstApproval.id]).status == 0)
            try await eventually("its notification is withdrawn") { desktop.closedIds().contains(first) }
            #expect(desktop.closedIds().dropFirst(closedBefore.count) == [first],
                    "only the new server's id of the answered approval is closed")
        }
    }

    /// A PlusAuth-like number challenge and a prompt with the same title and message: dunst's stack_duplicates
    /// merged them, closing the number challenge's notification ("expired"), never shown again.
    @Test func twoLookAlikeSignInsStayTwoNotifications() async throws {
        try await Self.withDesktop { _, sim, desktop, _ in
            _ = try await sim.push(.init(type: "challenge", message: "Sign in to the mail"))
            _ = try await sim.push(.init(message: "Sign in to the mail"))
            try await eventually("both are shown") { Self.shown(desktop, "Sign in to the mail").count == 2 }
            try await eventually("the server shows two") { try await desktop.displayedCount() == 2 }
            try await Task.sleep(for: .seconds(1))
            #expect(try await desktop.displayedCount() == 2, "neither merged into the other")
            #expect(Self.shown(desktop, "Sign in to the mail").contains { $0.body.contains("Pick the number shown at the sign-in") })
        }
    }

    @Test func aNotificationClosedByAnotherProgramComesBackButOneTheUserDismissesDoesNot() async throws {
        try await Self.withDesktop { cluster, sim, desktop, _ in
            _ = try await sim.push(.init(message: "Closed behind the user's back"))
            let shown = try await Self.notification(desktop, "Closed behind the user's back")
            try await desktop.closeFromAnotherClient(try #require(shown.id))
            try await eventually("it is shown again") { Self.shown(desktop, "Closed behind the user's back").count == 2 }
            let dismissed = try await desktop.dunstctl(["close"])
            #expect(dismissed.status == 0, "dunstctl close: \(dismissed.stderr)")
            try await eventually("the user's close takes it off the screen") { try await desktop.displayedCount() == 0 }
            try await Task.sleep(for: .seconds(2))
            #expect(Self.shown(desktop, "Closed behind the user's back").count == 2, "the user's dismissal is respected")
            #expect(try await cluster.client.approvals(state: .pending).count == 1, "and the approval still waits")
        }
    }

    @Test func aLookAlikePushReplacesTheOlderNotificationWithoutSayingDenied() async throws {
        try await Self.withDesktop(daemonSettings: ["PUSHAGENT_COLLAPSE_SIMILAR_PENDING": "true"]) { _, sim, desktop, _ in
            _ = try await sim.push(.init(message: "Sent twice by an impatient user"))
            let older = try await Self.notification(desktop, "Sent twice by an impatient user")
            _ = try await sim.push(.init(message: "Sent twice by an impatient user"))
            try await eventually("the newer is shown") { Self.shown(desktop, "Sent twice by an impatient user").count == 2 }
            try await eventually("the older is withdrawn") { desktop.closedIds().contains(try #require(older.id)) }
            try await Task.sleep(for: .seconds(1))
            #expect(!desktop.notifications().contains { $0.summary.hasPrefix("Sign-in denied") },
                    "the user denied nothing")
        }
    }

    @Test func stoppingTheNotifierClosesItsNotificationsAndStartingItShowsThemAgain() async throws {
        try await Self.withDesktop { cluster, sim, desktop, notifier in
            _ = try await sim.push(.init(message: "Waiting while notify restarts"))
            let shown = try await Self.notification(desktop, "Waiting while notify restarts")
            notifier.signal(SIGTERM)
            let exit = try await notifier.waitForExit()
            #expect(exit.status == 0 && !exit.signaled, "pushctl notify said:\n\(notifier.text)")
            #expect(desktop.closedIds().contains(try #require(shown.id)), "no button is left that answers nothing")
            #expect(notifier.text.contains("stopped; closed 1 notification"))
            let again = try ManagedProcess(name: "pushctl notify", executable: Binaries.path("pushctl"),
                                           arguments: ["--socket", cluster.socketPath, "notify"],
                                           environment: desktop.environment)
            do {
                try await eventually("shown again on start") { Self.shown(desktop, "Waiting while notify restarts").count == 2 }
            } catch {
                await again.stop()
                throw error
            }
            await again.stop()
        }
    }

    @Test func withoutASessionBusATypedNotifySaysSoAndExitsUnlessToldToWait() async throws {
        let noBus = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/pushagent-test-bus"]
        let typed = try await CommandResult.run(Binaries.path("pushctl"), ["--socket", "/nonexistent.sock", "notify"],
                                                environment: noBus)
        #expect(typed.status == 6, "\(typed.stderr)")
        #expect(typed.stderr.contains("cannot connect to the session bus") && typed.stderr.contains("--wait"))
        let json = try await CommandResult.run(Binaries.path("pushctl"), ["--json", "notify"], environment: noBus)
        #expect(json.status == 2, "notify prints nothing on stdout, so --json is a usage error: \(json.stderr)")
        let waiting = try ManagedProcess(name: "pushctl notify --wait", executable: Binaries.path("pushctl"),
                                         arguments: ["--socket", "/nonexistent.sock", "notify", "--wait"], environment: noBus)
        _ = try? await waiting.waitForLine(startingWith: "pushctl notify: cannot connect to the session bus")
        try await Task.sleep(for: .seconds(3))
        #expect(waiting.isRunning, "with --wait it keeps trying: \(waiting.text)")
        #expect(waiting.text.components(separatedBy: "cannot connect").count == 2, "and says so once: \(waiting.text)")
        await waiting.stop()
    }
}
