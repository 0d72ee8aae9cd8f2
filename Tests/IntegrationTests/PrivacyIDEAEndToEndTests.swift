import ClusterHarness
import ControlWire
import Foundation
import PushAgentCore
import Testing

/// Against a REAL privacyIDEA 3.14 (from PyPI, started by scripts/privacyidea-server.sh): the real pushagentd
/// enrolls a poll-only push token through `pushctl enroll`, polls its challenges, and answers them; privacyIDEA's own
/// /validate endpoints say whether the login went through.
@Suite(.serialized, .timeLimit(.minutes(15)))
struct PrivacyIDEAEndToEndTests {
    @Test func pollOnlyTokenAgainstRealPrivacyIDEA() async throws {
        // Poll only on `pushctl refresh` at first: an hour between scheduled polls.
        try await withPrivacyIDEAFamilyServer("privacyIDEA", pollSeconds: 3600,
                                              start: { try await PrivacyIDEAServer(directory: $0) }) { cluster, server in
            try await Self.run(cluster, server)
        }
    }

    static func run(_ cluster: Cluster, _ server: PrivacyIDEAServer) async throws {
        let alice = try await enroll(cluster, server, user: "alice")

        // Approve: the challenge is polled on refresh, shown, approved; privacyIDEA lets the login through.
        let first = try await server.triggerChallenge(user: "alice")
        #expect(try await cluster.client.approvals(state: .pending).isEmpty, "nothing polled yet")
        let approval = try await refreshedApproval(cluster)
        #expect(approval.provider == .privacyidea && approval.accountId == alice.id && approval.kind == .prompt)
        let list = try await cluster.pushctl(["list"])
        #expect(list.stdout.contains(approval.id) && list.stdout.contains("Do you want to confirm the login?"), "\(list.stdout)")
        #expect(try await server.isAccepted(transactionId: first.transactionId) == false)
        let approve = try await cluster.pushctl(["approve", approval.id])
        #expect(approve.status == 0 && approve.stdout.contains("approved"), "approve: \(approve.stderr)")
        #expect(try await server.isAccepted(transactionId: first.transactionId))
        #expect(try await server.finishLogin(user: "alice", transactionId: first.transactionId) == "ACCEPT")
        let again = try await cluster.pushctl(["refresh"])
        #expect(again.stdout.contains("0 new approval(s)"), "an answered challenge is not offered again: \(again.stdout)")

        // Decline: privacyIDEA refuses the login.
        let second = try await server.triggerChallenge(user: "alice")
        let declined = try await refreshedApproval(cluster)
        let deny = try await cluster.pushctl(["deny", declined.id])
        #expect(deny.status == 0 && deny.stdout.contains("denied"), "deny: \(deny.stderr)")
        #expect(try await server.isAccepted(transactionId: second.transactionId) == false)
        #expect(try await server.finishLogin(user: "alice", transactionId: second.transactionId) == "REJECT")

        // Presence (bob has push_require_presence): pick the option the login screen shows.
        _ = try await enroll(cluster, server, user: "bob")
        let third = try await server.triggerChallenge(user: "bob")
        let expected = try #require(third.presenceAnswer)
        let presence = try await refreshedApproval(cluster)
        #expect(presence.kind == .number)
        let options = try #require(presence.numbers)
        #expect(options.contains(expected) && options.count == 3, "options \(options), expected \(expected)")
        #expect(try await cluster.pushctl(["approve", presence.id]).status == 2, "the option is required")
        #expect(try await cluster.pushctl(["approve", presence.id, "--number", "NOT-AN-OPTION"]).status == 2)
        #expect(try await server.isAccepted(transactionId: third.transactionId) == false, "refused answers send nothing")
        let correct = try await cluster.pushctl(["approve", presence.id, "--number", expected])
        #expect(correct.status == 0, "approve with the presence answer: \(correct.stderr)")
        #expect(try await server.isAccepted(transactionId: third.transactionId))
        #expect(try await server.finishLogin(user: "bob", transactionId: third.transactionId) == "ACCEPT")

        // Code to phone (carol has push_code_to_phone): approving shows the code to type at the sign-in screen.
        _ = try await enroll(cluster, server, user: "carol")
        let fifth = try await server.triggerChallenge(user: "carol")
        let toPhone = try await refreshedApproval(cluster)
        let shown = try await cluster.pushctl(["approve", toPhone.id])
        #expect(shown.status == 0, "approve: \(shown.stderr)")
        let code = try #require(try await cluster.client.approval(toPhone.id).resolution?.displayCode)
        #expect(code.count == 2 && code.allSatisfy(\.isNumber), "privacyIDEA's display code is two digits: \(code)")
        #expect(shown.stdout.contains("Enter the code to log in: \(code)"), "\(shown.stdout)")
        #expect(try await cluster.pushctl(["show", toPhone.id]).stdout.contains("code to type at the sign-in \(code)"))
        #expect(try await server.finishLogin(user: "carol", transactionId: fifth.transactionId, pass: code) == "ACCEPT")

        // Scheduled polling: restarted with a 1 s interval, the agent finds the challenge with no refresh;
        // a fraud report declines it with a reason privacyIDEA 3.14 understands.
        await cluster.daemon?.stop()
        try await cluster.startDaemon(extraEnvironment: ["PUSHAGENT_PRIVACYIDEA_POLL_SECONDS": "1"])
        let fourth = try await server.triggerChallenge(user: "alice")
        var polled: Approval?
        try await eventually("the scheduled poll finds the challenge", timeout: .seconds(30)) {
            polled = try await cluster.client.approvals(state: .pending).first
            return polled != nil
        }
        let status = try await cluster.pushctl(["status"]).stdout
        #expect(status.contains("privacyidea-poll: polling"), "its push source reports itself: \(status)")
        let fraud = try await cluster.pushctl(["deny", "--fraud", try #require(polled).id])
        #expect(fraud.status == 0, "deny --fraud: \(fraud.stderr)")
        #expect(try await server.finishLogin(user: "alice", transactionId: fourth.transactionId) == "REJECT")
        #expect(try await server.auditCount(actionDetail: "*\(fourth.transactionId)*reason: unknown_trigger*") == 1,
                "privacyIDEA recorded the decline as 'I did not start this'")
        #expect(try await server.auditCount(actionDetail: "*\(second.transactionId)*declined*") >= 1)
        #expect(try await server.auditCount(actionDetail: "*\(second.transactionId)*reason*") == 0,
                "the plain decline carries no reason")
        #expect(try await cluster.client.history().allSatisfy { $0.rejectedPush == nil }, "no challenge was refused")
    }

    /// `pushctl enroll` with the URI privacyIDEA's /token/init returns; a second use of it is refused by the server.
    static func enroll(_ cluster: Cluster, _ server: PrivacyIDEAServer, user: String) async throws -> Account {
        let uri = try await server.enrollmentURI(user: user)
        #expect(uri.hasPrefix("otpauth://pipush/") && uri.contains("poll_only=True") && uri.contains("sslverify=0"), "\(uri)")
        let dryRun = try await cluster.pushctl(["enroll", "--dry-run", uri])
        #expect(dryRun.stdout.contains("polling (poll only)"), "\(dryRun.stdout)")
        let enroll = try await cluster.pushctl(["enroll", uri])
        #expect(enroll.status == 0, "enroll: \(enroll.stderr)")
        let reuse = try await cluster.pushctl(["enroll", uri])
        #expect(reuse.status == 1 && reuse.stderr.contains("clientwait"), "a used QR code: \(reuse.stderr)")
        return try #require(try await cluster.client.accounts().last { $0.provider == .privacyidea })
    }

    /// `pushctl refresh` polls at once; the new challenge is the one pending approval.
    static func refreshedApproval(_ cluster: Cluster) async throws -> Approval {
        let refresh = try await cluster.pushctl(["refresh"])
        #expect(refresh.status == 0 && refresh.stdout.contains("1 new approval(s)"), "refresh: \(refresh.stdout) \(refresh.stderr)")
        let pending = try await cluster.client.approvals(state: .pending)
        #expect(pending.count == 1)
        return try #require(pending.first)
    }
}
