import ClusterHarness
import ControlClient
import ControlWire
import Foundation
import PushAgentCore
import PushSim
import Testing

/// Push bombing (MFA fatigue) defences with the real processes: pushsim plays ForgeRock AM and records every
/// answer the agent sends, so "denied upstream" is what the provider saw, not what the daemon says.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct PushFatigueTests {
    /// A cluster whose daemon runs with `settings` (PUSHAGENT_* keys) and has `accounts` enrolled from pushsim.
    static func withCluster(_ settings: [String: String], accounts: [String] = ["alice"],
                            _ body: (Cluster, SimAdminClient) async throws -> Void) async throws {
        try await Cluster.run { cluster in
            try await cluster.startDaemon(extraEnvironment: settings)
            let sim = SimAdminClient(baseURL: cluster.simURL)
            for account in accounts {
                let enroll = try await cluster.pushctl(["enroll", "-"], input: try await sim.enrollURI(.init(account: account)))
                #expect(enroll.status == 0, "enroll \(account): \(enroll.stderr)")
            }
            try await body(cluster, sim)
        }
    }

    static func accountId(_ cluster: Cluster, named name: String) async throws -> String {
        try #require(try await cluster.client.accounts().first { $0.name.contains(name) }).id
    }

    /// The answers pushsim received for `pushes`, once each has one.
    static func answers(_ sim: SimAdminClient, for pushes: [SimAdminAPI.PushResponse]) async throws -> [String: String] {
        let ids = Set(pushes.map(\.messageId))
        var outcomes: [String: String] = [:]
        try await eventually("pushsim has answers for \(ids.count) push(es)") {
            outcomes = Dictionary(try await sim.answers().filter { ids.contains($0.messageId) }
                .map { ($0.messageId, $0.outcome.rawValue) }, uniquingKeysWith: { $1 })
            return outcomes.count == ids.count
        }
        return outcomes
    }

    static func pending(_ cluster: Cluster, count: Int) async throws -> [Approval] {
        var approvals: [Approval] = []
        try await eventually("\(count) pending approval(s)") {
            approvals = try await cluster.client.approvals(state: .pending)
            return approvals.count == count
        }
        return approvals
    }

    @Test func aBurstOverTheBudgetIsDeniedUpstreamRecordedAndAlarmedOnce() async throws {
        try await Self.withCluster(["PUSHAGENT_PUSH_LIMIT_PER_ACCOUNT": "3", "PUSHAGENT_PUSH_LIMIT_WINDOW_SECONDS": "120"]) { cluster, sim in
            let watch = try ManagedProcess(name: "pushctl --json watch", executable: Binaries.path("pushctl"),
                                           arguments: ["--socket", cluster.socketPath, "--json", "watch"])
            try await eventually("the watcher is subscribed") { watch.text.contains(#""type":"relay.state""#) }
            var pushes: [SimAdminAPI.PushResponse] = []
            for index in 1...8 { pushes.append(try await sim.push(.init(message: "Sign-in attempt \(index)"))) }

            let shown = try await Self.pending(cluster, count: 3)
            #expect(Set(shown.map(\.message)) == ["Sign-in attempt 1", "Sign-in attempt 2", "Sign-in attempt 3"])
            let outcomes = try await Self.answers(sim, for: Array(pushes.suffix(5)))
            #expect(outcomes.values.allSatisfy { $0 == "denied" }, "over the budget: denied at the provider: \(outcomes)")

            let history = try await cluster.client.history()
            let limited = history.compactMap(\.rejectedPush).filter { $0.reason == .rateLimited }
            #expect(limited.count == 5, "each push over the budget is in history: \(history)")
            #expect(limited.allSatisfy { $0.message.contains("limit") && $0.provider == .forgerock })
            let text = try await cluster.pushctl(["history"])
            #expect(text.stdout.contains("rate_limited"))

            try await eventually("the bombing event reaches the watcher") { watch.text.contains(#""type":"approval.bombing""#) }
            try await Task.sleep(for: .milliseconds(500))
            #expect(watch.text.components(separatedBy: #""type":"approval.bombing""#).count == 2, "one event per burst")
            let daemonLog = cluster.daemon?.text ?? ""
            #expect(daemonLog.components(separatedBy: "push bombing?").count == 2, "one warning per burst: \(daemonLog)")
            #expect(try await cluster.client.approvals(state: .pending).count == 3, "the first three stay answerable")
        }
    }

    @Test func identicalPendingRequestsCollapseIntoTheNewest() async throws {
        try await Self.withCluster(["PUSHAGENT_COLLAPSE_SIMILAR_PENDING": "true"]) { cluster, sim in
            var pushes: [SimAdminAPI.PushResponse] = []
            for _ in 1...3 { pushes.append(try await sim.push(.init(message: "Sign in to the wiki?"))) }
            let outcomes = try await Self.answers(sim, for: Array(pushes.prefix(2)))
            #expect(outcomes.values.allSatisfy { $0 == "denied" }, "the older look-alikes are denied: \(outcomes)")
            let visible = try await Self.pending(cluster, count: 1)[0]
            // The provider has the answers once pushsim stored them; the agent marks them denied once pushsim's reply
            // is back, a moment later (CI saw one still `denying`).
            var superseded: [Approval] = []
            try await eventually("both look-alikes are denied here too") {
                superseded = try await cluster.client.approvals(state: .denied)
                return superseded.count == 2
            }
            #expect(superseded.allSatisfy { $0.resolution?.automatic == .superseded })

            let approve = try await cluster.pushctl(["approve", visible.id])
            #expect(approve.status == 0, "the newest stays answerable: \(approve.stderr)")
            #expect(try await Self.answers(sim, for: [pushes[2]])[pushes[2].messageId] == "approved")

            _ = try await sim.push(.init(message: "Sign in to the wiki?"))
            _ = try await sim.push(.init(message: "Sign in to the mail?"))
            #expect(try await Self.pending(cluster, count: 2).count == 2, "a different request is not collapsed")
        }
    }

    @Test func aFraudReportMutesTheAccountUntilUnmuted() async throws {
        try await Self.withCluster(["PUSHAGENT_FRAUD_MUTE_SECONDS": "600"], accounts: ["alice", "bob"]) { cluster, sim in
            let alice = try await Self.accountId(cluster, named: "alice")
            let attack = try await sim.push(.init(account: "alice", message: "Not me"))
            let approval = try await Self.pending(cluster, count: 1)[0]
            let deny = try await cluster.pushctl(["deny", approval.id, "--fraud"])
            #expect(deny.status == 0, "deny --fraud: \(deny.stderr)")
            #expect(try await Self.answers(sim, for: [attack])[attack.messageId] == "denied")

            let status = try await cluster.client.status()
            let muted = try #require(status.mutedAccounts?.first)
            #expect(muted.id == alice && muted.isMuted(at: Date()))
            #expect(muted.mutedUntil.map { $0.timeIntervalSinceNow > 500 && $0.timeIntervalSinceNow <= 600 } == true)
            #expect(try await cluster.pushctl(["status"]).stdout.contains("muted: \(alice)"))
            #expect(try await cluster.pushctl(["accounts"]).stdout.contains("muted until"))

            let whileMuted = try await sim.push(.init(account: "alice", message: "Not me again"))
            #expect(try await Self.answers(sim, for: [whileMuted])[whileMuted.messageId] == "denied", "denied upstream, unseen")
            let forBob = try await sim.push(.init(account: "bob", message: "Bob signs in"))
            let shown = try await Self.pending(cluster, count: 1)
            #expect(shown[0].message.contains("Bob"), "another account is not muted")
            #expect(try await cluster.client.history().compactMap(\.rejectedPush).contains { $0.reason == .muted })

            let unmute = try await cluster.pushctl(["unmute", String(alice.prefix(10))])
            #expect(unmute.status == 0 && unmute.stdout.contains("unmuted"), "unmute: \(unmute.stderr)")
            #expect(try await cluster.client.status().mutedAccounts?.isEmpty == true)
            _ = try await sim.push(.init(account: "alice", message: "Alice signs in"))
            #expect(try await Self.pending(cluster, count: 2).contains { $0.message.contains("Alice signs in") })

            let mute = try await cluster.pushctl(["mute", "--for", "20m", shown[0].accountId])
            #expect(mute.status == 0 && mute.stdout.contains("muted until"), "mute: \(mute.stderr)")
            let bobMuted = try #require(try await cluster.client.status().mutedAccounts?.first)
            #expect(abs(bobMuted.mutedUntil!.timeIntervalSinceNow - 1200) < 30)
            let badDuration = try await cluster.pushctl(["mute", "--for", "soon", alice])
            #expect(badDuration.status != 0 && badDuration.stderr.contains("not a duration"))
            _ = forBob
        }
    }

    @Test func denyAllDeniesEveryPendingApprovalOrOneAccounts() async throws {
        try await Self.withCluster([:], accounts: ["alice", "bob"]) { cluster, sim in
            let alice = try await Self.accountId(cluster, named: "alice")
            var pushes: [SimAdminAPI.PushResponse] = []
            for (index, account) in ["alice", "alice", "bob", "bob"].enumerated() {
                pushes.append(try await sim.push(.init(account: account, message: "Sign-in \(index)")))
            }
            _ = try await Self.pending(cluster, count: 4)

            let onlyAlice = try await cluster.pushctl(["deny", "--all", "--account", alice])
            #expect(onlyAlice.status == 0, "deny --all --account: \(onlyAlice.stderr)")
            #expect(onlyAlice.stdout.components(separatedBy: " denied").count == 3, "\(onlyAlice.stdout)")
            let left = try await Self.pending(cluster, count: 2)
            #expect(left.allSatisfy { $0.accountId != alice })
            #expect(try await Self.answers(sim, for: Array(pushes.prefix(2))).values.allSatisfy { $0 == "denied" })

            let rest = try await cluster.pushctl(["deny", "--all"])
            #expect(rest.status == 0, "deny --all: \(rest.stderr)")
            #expect(try await Self.answers(sim, for: Array(pushes.suffix(2))).values.allSatisfy { $0 == "denied" })
            #expect(try await cluster.client.approvals(state: .pending).isEmpty)
            #expect(try await cluster.pushctl(["deny", "--all"]).stdout.contains("nothing pending"))

            let neither = try await cluster.pushctl(["deny"])
            #expect(neither.status != 0 && neither.stderr.contains("or --all"))
        }
    }

    /// Whatever the client: the API itself refuses a number approval without the number.
    @Test func aNumberApprovalCannotBeApprovedBlind() async throws {
        try await Self.withCluster([:]) { cluster, sim in
            _ = try await sim.push(.init(type: "challenge", message: "Which number?"))
            let approval = try await Self.pending(cluster, count: 1)[0]
            #expect(approval.kind == .number)
            for userVerified in [nil, true] {
                await #expect {
                    _ = try await cluster.client.approve(approval.id, userVerified: userVerified)
                } throws: { error in
                    guard case ControlClientError.api(400, let body) = error else { return false }
                    return body.code == .invalidArgument && body.message.contains("needs the number")
                }
            }
            #expect(try await cluster.client.approval(approval.id).state == .pending)
        }
    }
}
