import ClusterHarness
import ControlWire
import Foundation
import PushAgentCore
import Testing

/// Against a REAL eduMFA 2.9.5 (privacyIDEA's fork, from PyPI, started by scripts/edumfa-server.sh): the real
/// pushagentd enrolls each of eduMFA's push token types through `pushctl enroll`, finds their challenges by its own
/// scheduled polling (eduMFA's URIs never say `poll_only`, and no `pushctl refresh` is made here), and answers them;
/// eduMFA's own /validate endpoints say whether the login went through.
@Suite(.serialized, .timeLimit(.minutes(15)))
struct EduMFAEndToEndTests {
    /// What one token type enrolls as.
    struct Expected {
        var uriPrefix: String
        var serialPrefix: String
        var provider: Provider
        var pollSource: String
    }

    static func expected(for type: EduMFAServer.TokenType) -> Expected {
        switch type {
        // eduMFA's own token type: its own URI scheme, an eduMFA account.
        case .edupush: Expected(uriPrefix: "edumfa-push://edumfa/", serialPrefix: "EDUP", provider: .edumfa,
                                pollSource: "edumfa-poll")
        // The legacy type: privacyIDEA's QR code, which nothing tells from privacyIDEA's own: a privacyIDEA account.
        case .push: Expected(uriPrefix: "otpauth://pipush/", serialPrefix: "PIPU", provider: .privacyidea,
                             pollSource: "privacyidea-poll")
        }
    }

    @Test(arguments: [EduMFAServer.TokenType.edupush, .push])
    func tokenPolledOnScheduleAgainstRealEduMFA(type: EduMFAServer.TokenType) async throws {
        // A scheduled poll every second: the only way a challenge reaches the agent in this test.
        try await withPrivacyIDEAFamilyServer("eduMFA (\(type.rawValue))", pollSeconds: 1,
                                              start: { try await EduMFAServer(directory: $0) }) { cluster, server in
            try await Self.run(cluster, server, type: type)
        }
    }

    static func run(_ cluster: Cluster, _ server: EduMFAServer, type: EduMFAServer.TokenType) async throws {
        let expected = expected(for: type)
        let account = try await enroll(cluster, server, type: type, expected: expected)

        // Approve: the scheduled poll finds the challenge; eduMFA lets the login through.
        let first = try await server.triggerChallenge(user: "alice")
        #expect(first.serial == account.name, "eduMFA challenged the enrolled token")
        let approval = try await polledApproval(cluster, account: account, expected: expected)
        let list = try await cluster.pushctl(["list"])
        #expect(list.status == 0 && list.stdout.contains(approval.id)
                && list.stdout.contains(expected.provider.rawValue)
                && list.stdout.contains("Do you want to confirm the login?"), "\(list.stdout)")
        let status = try await cluster.pushctl(["status"])
        #expect(status.stdout.contains("\(expected.pollSource): polling"), "its poll source reports itself: \(status.stdout)")
        #expect(try await server.challengeStatus(transactionId: first.transactionId) == .pending)
        let approve = try await cluster.pushctl(["approve", approval.id])
        #expect(approve.status == 0 && approve.stdout.contains("approved"), "approve: \(approve.stdout) \(approve.stderr)")
        #expect(try await cluster.client.approval(approval.id).state == .approved)
        #expect(try await server.challengeStatus(transactionId: first.transactionId) == .accepted)
        #expect(try await server.finishLogin(user: "alice", transactionId: first.transactionId) == "ACCEPT")
        // Several scheduled polls later the answered challenge has not come back.
        try await Task.sleep(for: .seconds(3))
        #expect(try await pendingApprovals(cluster).isEmpty, "an answered challenge is not offered again")

        // Deny: eduMFA refuses the login.
        let second = try await server.triggerChallenge(user: "alice")
        #expect(second.transactionId != first.transactionId)
        let declined = try await polledApproval(cluster, account: account, expected: expected)
        #expect(declined.id != approval.id)
        let deny = try await cluster.pushctl(["deny", declined.id])
        #expect(deny.status == 0 && deny.stdout.contains("denied"), "deny: \(deny.stdout) \(deny.stderr)")
        #expect(try await cluster.client.approval(declined.id).state == .denied)
        #expect(try await server.challengeStatus(transactionId: second.transactionId) == .declined)
        #expect(try await server.finishLogin(user: "alice", transactionId: second.transactionId) == "REJECT")
        try await Task.sleep(for: .seconds(3))
        #expect(try await pendingApprovals(cluster).isEmpty, "a declined challenge is not offered again")
        #expect(try await cluster.client.history().allSatisfy { $0.rejectedPush == nil }, "no challenge was refused")
    }

    /// `pushctl enroll` with the URI eduMFA's /token/init returns; `pushctl --json accounts` then shows the account.
    static func enroll(_ cluster: Cluster, _ server: EduMFAServer, type: EduMFAServer.TokenType,
                       expected: Expected) async throws -> Account {
        let uri = try await server.enrollmentURI(user: "alice", type: type)
        #expect(uri.hasPrefix(expected.uriPrefix + expected.serialPrefix), "\(uri)")
        #expect(!uri.contains("poll_only") && uri.contains("issuer=eduMFA") && uri.contains("sslverify=0"), "\(uri)")
        let serial = try #require(URLComponents(string: uri)?.queryItems?.first { $0.name == "serial" }?.value)
        #expect(serial.hasPrefix(expected.serialPrefix) && uri.hasPrefix(expected.uriPrefix + serial + "?"), "\(uri)")

        let enroll = try await cluster.pushctl(["enroll", uri])
        #expect(enroll.status == 0, "enroll: \(enroll.stdout) \(enroll.stderr)")

        let listed = try await cluster.pushctl(["--json", "accounts"])
        #expect(listed.status == 0, "accounts: \(listed.stderr)")
        let accounts = try ControlJSON.decoder().decode(AccountsResponse.self, from: Data(listed.stdout.utf8)).accounts
        #expect(accounts.count == 1, "\(listed.stdout)")
        let account = try #require(accounts.first)
        #expect(account.provider == expected.provider)
        #expect(account.issuer == "eduMFA")
        #expect(account.name == serial, "the label eduMFA writes by default is the serial")
        #expect(account.hasTOTP == false)
        // The names as pushctl prints them.
        let printed = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])
        let first = try #require((printed["accounts"] as? [[String: Any]])?.first)
        #expect(first["provider"] as? String == expected.provider.rawValue)
        #expect(first["issuer"] as? String == "eduMFA")
        return account
    }

    /// `pushctl --json list`'s pending approvals.
    static func pendingApprovals(_ cluster: Cluster) async throws -> [Approval] {
        let list = try await cluster.pushctl(["--json", "list"])
        guard list.status == 0 else { throw HarnessError("pushctl --json list: \(list.status) \(list.stderr)") }
        return try ControlJSON.decoder().decode(ApprovalsResponse.self, from: Data(list.stdout.utf8)).approvals
    }

    /// Waits, without `pushctl refresh`, until the agent's own scheduled polling shows the new challenge in
    /// `pushctl list`: the one pending approval, eduMFA's.
    static func polledApproval(_ cluster: Cluster, account: Account, expected: Expected) async throws -> Approval {
        let started = ContinuousClock.now
        var pending: [Approval] = []
        try await eventually("the scheduled poll shows the challenge in pushctl list", timeout: .seconds(60)) {
            pending = try await pendingApprovals(cluster)
            return !pending.isEmpty
        }
        print("eduMFA challenge polled after \(ContinuousClock.now - started)")
        #expect(pending.count == 1, "\(pending)")
        let approval = try #require(pending.first)
        #expect(approval.provider == expected.provider,
                "the account's provider, \(account.provider.rawValue); pushagentd output:\n\(cluster.daemon?.text ?? "")")
        #expect(approval.accountId == account.id)
        #expect(approval.title == "eduMFA")
        #expect(approval.message == "Do you want to confirm the login?")
        #expect(approval.kind == .prompt)
        #expect(approval.numbers == nil)
        #expect(approval.state == .pending)
        return approval
    }
}
