import ClusterHarness
import ControlWire
import Foundation
import PushAgentCore
import PushSim
import Testing

/// Auth0 Guardian through the real processes: pushsim (playing the tenant) → pushrelay → pushagentd → pushctl →
/// pushsim, which checks every answer's RS256 signature under the enrolled key and every claim.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct GuardianEndToEndTests {
    typealias API = SimAdminAPI.Guardian

    /// The context every test's push states.
    static let context = API.PushRequest(hostname: "login.example.com", browser: "Safari", browserVersion: "17.2",
                                         os: "macOS", osVersion: "14.2", location: "Palermo, BA, Argentina",
                                         latitude: "-34.57115", longitude: "-58.423297")
    static let message = "Did you try to sign in as alice? The browser, system and place are as the push states "
        + "them; Guardian pushes are not signed."

    /// Enrolls alice at the sim's tenant `PushSim` with `pushctl --json enroll` (extra arguments before the URI).
    static func enroll(_ cluster: Cluster, _ sim: SimAdminClient, arguments: [String] = [])
        async throws -> (Account, API.EnrollURIResponse) {
        let issued = try await sim.guardianEnrollURI(.init(account: "alice"))
        let enroll = try await cluster.pushctl(["--json", "enroll"] + arguments + [issued.uri])
        #expect(enroll.status == 0, "enroll: \(enroll.stderr)")
        let account = try ControlJSON.decoder().decode(Account.self, from: Data(enroll.stdout.utf8))
        return (account, issued)
    }

    /// A relay cluster with pushagentd and one enrolled Guardian account.
    static func withEnrolledCluster(_ body: (Cluster, SimAdminClient, Account, API.EnrollURIResponse) async throws -> Void)
        async throws {
        try await Cluster.run { cluster in
            try await cluster.startDaemon()
            let sim = SimAdminClient(baseURL: cluster.simURL)
            let (account, issued) = try await enroll(cluster, sim)
            try await body(cluster, sim, account, issued)
        }
    }

    /// The pending approval (exactly one) once it arrived.
    static func pending(_ cluster: Cluster, count: Int = 1) async throws -> Approval {
        var approvals: [Approval] = []
        try await eventually("a pending approval") {
            approvals = try await cluster.client.approvals(state: .pending)
            return approvals.count >= count
        }
        #expect(approvals.count == count, "\(approvals)")
        return approvals[0]
    }

    /// What the approval of a push with `context` shows, exactly.
    static func expectShowsTheContext(_ approval: Approval, account: Account) {
        #expect(approval.provider == .guardian && approval.accountId == account.id)
        #expect(approval.kind == .prompt && approval.numbers == nil)
        #expect(approval.title == "Sign-in to PushSim")
        #expect(approval.message == message)
        #expect(approval.context.app == "PushSim" && approval.context.user == "alice")
        #expect(approval.context.userAgent == "Safari 17.2 on macOS 14.2")
        #expect(approval.context.location == "Palermo, BA, Argentina")
        #expect(approval.context.ip == nil, "Guardian's push names no IP")
        #expect(approval.expiresAt.timeIntervalSince(approval.requestedAt) <= 300, "GuardianPush.answerWindow")
    }

    /// The code the URI's secret gives at `before` or at `after` equals `pushctl --json code`'s.
    static func expectCodeMatchesTheSecret(_ cluster: Cluster, account: Account, uri: String) async throws {
        let totp = try #require(try GuardianEnrollmentURI.parse(uri).totp, "the sim's URI carries a secret")
        let before = Date()
        let shown = try await cluster.pushctl(["--json", "code", account.id])
        let after = Date()
        #expect(shown.status == 0, "code: \(shown.stderr)")
        let code = try JSONDecoder().decode(CodeResponse.self, from: Data(shown.stdout.utf8))
        let expected = Set([TOTP.code(totp, at: before).code, TOTP.code(totp, at: after).code])
        #expect(expected.contains(code.code), "pushctl code \(code.code), the URI's secret \(expected)")
        #expect(code.code.count == 6 && code.accountId == account.id)
    }

    @Test func enrollCodeApproveAndDenyThroughTheRelay() async throws {
        try await Self.withEnrolledCluster { cluster, sim, account, issued in
            // pushctl --json accounts, read as plain JSON: the names the control API promises.
            let listed = try await cluster.pushctl(["--json", "accounts"])
            let accounts = try #require(
                (try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])?["accounts"] as? [[String: Any]],
                "\(listed.stdout)")
            #expect(accounts.count == 1)
            #expect(accounts.first?["provider"] as? String == "guardian")
            #expect(accounts.first?["issuer"] as? String == "PushSim" && accounts.first?["name"] as? String == "alice")
            #expect(accounts.first?["has_totp"] as? Bool == true)
            let table = try await cluster.pushctl(["accounts"])
            #expect(table.stdout.contains("guardian") && table.stdout.contains("relay"), "\(table.stdout)")

            // The sim enrolled this machine's relay token under the ticket's device id.
            let device = try #require(try await sim.guardianDevices().first)
            #expect(device.id == issued.deviceId && device.service == "GCM" && !device.deleted)
            #expect(device.pushToken == (try await cluster.client.status().pushToken))
            #expect(device.tokenChanges.isEmpty && device.identifier.hasPrefix("pushagent"))

            try await Self.expectCodeMatchesTheSecret(cluster, account: account, uri: issued.uri)

            // A push stating its context: pushctl --json list shows it as stated, and says it is unsigned.
            let push = try await sim.guardianPush(Self.context)
            _ = try await Self.pending(cluster)
            let list = try await cluster.pushctl(["--json", "list"])
            #expect(list.status == 0, "list: \(list.stderr)")
            let approvals = try ControlJSON.decoder().decode(ApprovalsResponse.self, from: Data(list.stdout.utf8)).approvals
            let approval = try #require(approvals.first)
            #expect(approvals.count == 1 && approval.state == .pending)
            Self.expectShowsTheContext(approval, account: account)
            #expect(approval.context.raw?["server"] == .string("login.example.com"))
            let listedJSON = try #require(
                ((try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])?["approvals"] as? [[String: Any]])?.first)
            #expect(listedJSON["provider"] as? String == "guardian")
            #expect((listedJSON["context"] as? [String: Any])?["user_agent"] as? String == "Safari 17.2 on macOS 14.2")

            let approve = try await cluster.pushctl(["approve", approval.id])
            #expect(approve.status == 0, "approve: \(approve.stderr)")
            let accepted = try await sim.guardianTransaction(push.transactionId, wait: 10)
            #expect(accepted.state == .accepted && accepted.verified && accepted.reason == nil)
            #expect(accepted.resolutions.map(\.status) == [204] && accepted.resolutions.first?.accepted == true)
            #expect(try await cluster.client.approval(approval.id).state == .approved)

            // A second push, denied (no --fraud: no reason is sent).
            let second = try await sim.guardianPush(Self.context)
            var denyMe: Approval?
            try await eventually("the second push arrives") {
                denyMe = try await cluster.client.approvals(state: .pending).first
                return denyMe != nil
            }
            let deny = try await cluster.pushctl(["deny", try #require(denyMe).id])
            #expect(deny.status == 0, "deny: \(deny.stderr)")
            let rejected = try await sim.guardianTransaction(second.transactionId, wait: 10)
            #expect(rejected.state == .rejected && rejected.verified && rejected.reason == nil)
            #expect(rejected.resolutions.map(\.status) == [204] && rejected.resolutions.first?.accepted == false)
            #expect(try await cluster.client.approval(try #require(denyMe).id).state == .denied)
        }
    }

    @Test func aForgedPushIsRefusedAndAReplayMakesNoSecondApproval() async throws {
        try await Self.withEnrolledCluster { cluster, sim, account, _ in
            // Forged: sent to this machine's token, naming an enrollment id no account here has.
            let forged = try await sim.guardianPush(.init(unknownDevice: true))
            let forgedDai = try #require(forged.data["dai"])
            #expect(forgedDai != account.id && forged.device != forgedDai)
            let refused = try await cluster.rejectedPush(.unknownAccount)
            #expect(refused.provider == .guardian)
            #expect(refused.message == "no Auth0 Guardian account here is the enrollment \(forgedDai) the push names",
                    "\(refused.message)")
            #expect(try await cluster.client.approvals().isEmpty, "no approval for a forged push")
            let history = try await cluster.pushctl(["history"])
            #expect(history.stdout.contains("unknown_account"), "\(history.stdout)")
            try await eventually("the daemon logs the refusal with its reason") {
                cluster.daemon?.text.contains("push rejected: no Auth0 Guardian account here is the enrollment \(forgedDai)") == true
            }

            // Replayed: an answered transaction's exact map, sent again.
            let push = try await sim.guardianPush(Self.context)
            let approval = try await Self.pending(cluster)
            #expect(try await cluster.pushctl(["approve", approval.id]).status == 0)
            #expect(try await sim.guardianTransaction(push.transactionId, wait: 10).state == .accepted)
            let replay = try await sim.guardianPush(.init(transactionId: push.transactionId))
            #expect(replay.data == push.data && replay.transactionId == push.transactionId)
            let duplicate = try await cluster.rejectedPush(.duplicate)
            #expect(duplicate.provider == .guardian)
            #expect(duplicate.message == "a replay of the push behind approval \(approval.id): no second approval",
                    "\(duplicate.message)")
            try await eventually("the daemon logs the duplicate") {
                cluster.daemon?.text.split(separator: "\n").contains {
                    $0.contains("duplicate push ignored") && $0.contains(approval.id)
                } == true
            }
            #expect(try await cluster.client.approvals(state: .pending).isEmpty, "no new pending approval")
            #expect(try await cluster.client.approvals().count == 1)
            let transaction = try await sim.guardianTransaction(push.transactionId)
            #expect(transaction.pushes == 2 && transaction.resolutions.count == 1, "the replay was never answered")
        }
    }

    @Test func removeUnenrollsAtGuardianAndANewRelayTokenIsPatched() async throws {
        try await Self.withEnrolledCluster { cluster, sim, account, issued in
            let oldToken = try #require(try await cluster.client.status().pushToken)

            // The relay forgets the device (its database lost): a new registration, a new token, Guardian told.
            try await cluster.restartRelayWithoutItsDatabase()
            let newToken = try await cluster.newPushToken(replacing: oldToken)
            try await eventually("Guardian (pushsim) is told the new token") {
                try await sim.guardianDevices().first?.pushToken == newToken
            }
            let patched = try #require(try await sim.guardianDevices().first)
            #expect(patched.tokenChanges.map(\.token) == [try #require(newToken)])
            #expect(patched.tokenChanges.map(\.auth) == ["jwt"], "the signed device-account JWT")
            try await eventually("the account is clear") { try await cluster.client.accounts().first?.needsTokenUpdate == false }
            #expect(try await cluster.client.accounts().first?.tokenUpdateProblem == nil)

            // A push reaches the new token and is answered.
            let push = try await sim.guardianPush(Self.context)
            let approval = try await Self.pending(cluster)
            #expect(try await cluster.pushctl(["approve", approval.id]).status == 0)
            let accepted = try await sim.guardianTransaction(push.transactionId, wait: 10)
            #expect(accepted.state == .accepted && accepted.verified)

            // pushctl remove deletes the device account at Guardian.
            let remove = try await cluster.pushctl(["remove", account.id])
            #expect(remove.status == 0, "remove: \(remove.stderr)")
            let device = try #require(try await sim.guardianDevices().first)
            #expect(device.id == issued.deviceId && device.deleted && device.deletedBy == "jwt")
            #expect(try await cluster.client.accounts().isEmpty)
        }
    }
}
