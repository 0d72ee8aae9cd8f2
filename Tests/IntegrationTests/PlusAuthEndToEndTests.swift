import ClusterHarness
import ControlWire
import Foundation
import PushAgentCore
import PushSim
import Testing

/// PlusAuth through the real processes: pushsim (playing the tenant) → pushrelay → pushagentd → pushctl → pushsim.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct PlusAuthEndToEndTests {
    /// A running cluster (relay and pushsim), stopped afterwards; the daemon's output is printed on failure.
    static func withCluster(_ body: (Cluster, SimAdminClient) async throws -> Void) async throws {
        try await Cluster.run { cluster in
            try await body(cluster, SimAdminClient(baseURL: cluster.simURL))
        }
    }

    /// A running cluster with one enrolled PlusAuth account; `environment` goes to pushagentd.
    static func withEnrolledCluster(environment: [String: String] = [:],
                                    _ body: (Cluster, SimAdminClient) async throws -> Void) async throws {
        try await withCluster { cluster, sim in
            try await cluster.startDaemon(extraEnvironment: environment)
            let enroll = try await cluster.pushctl(["enroll", try await sim.plusAuthEnrollURI(.init(account: "alice"))])
            #expect(enroll.status == 0, "enroll failed: \(enroll.stderr)")
            try await body(cluster, sim)
        }
    }

    static func pending(_ cluster: Cluster) async throws -> Approval {
        var approvals: [Approval] = []
        try await eventually("a pending approval") {
            approvals = try await cluster.client.approvals(state: .pending)
            return !approvals.isEmpty
        }
        return approvals[0]
    }

    @Test func enrollThenApproveACodePushWithTheRightValue() async throws {
        try await Self.withEnrolledCluster { cluster, sim in
            let accounts = try await cluster.pushctl(["accounts"])
            #expect(accounts.stdout.contains("plusauth") && accounts.stdout.contains("alice"), "\(accounts.stdout)")
            let registration = try #require(try await sim.plusAuthRegistrations().first)
            #expect(registration.algorithm == "ES256", "ES256 is the default key type")
            #expect(registration.deviceToken == (try await cluster.client.status().pushToken))

            let push = try await sim.plusAuthPush(.init(type: "code"))
            let approval = try await Self.pending(cluster)
            #expect(approval.provider == .plusauth && approval.kind == .number && approval.numbers == push.values)
            #expect(approval.title == "Sign-in to PushSim")
            #expect(approval.context.location == "Istanbul, TUR" && approval.context.ip == "203.0.113.7")
            #expect(approval.context.userAgent == "Firefox 121.0 on Ubuntu 22.04" && approval.context.user == "alice")

            #expect(try await cluster.pushctl(["approve", approval.id]).status == 2, "a code push needs --number")
            let correct = try #require(push.correctValue)
            let approve = try await cluster.pushctl(["approve", approval.id, "--number", correct])
            #expect(approve.status == 0, "approve: \(approve.stderr)")
            let answer = try await sim.plusAuthAnswer(to: push.pushId)
            #expect(answer.outcome == .approved && answer.value == correct && answer.verified)
            #expect(answer.endpoint == "/push-authenticator/resolve")
            #expect(try await cluster.client.approval(approval.id).state == .approved)
        }
    }

    @Test func approveAPromptPush() async throws {
        try await Self.withEnrolledCluster { cluster, sim in
            let push = try await sim.plusAuthPush(.init(type: "prompt"))
            let approval = try await Self.pending(cluster)
            #expect(approval.kind == .prompt && approval.numbers == nil)
            #expect(try await cluster.pushctl(["approve", String(approval.id.prefix(10))]).status == 0)
            let answer = try await sim.plusAuthAnswer(to: push.pushId)
            #expect(answer.outcome == .approved && answer.verified && answer.rejectReason == nil)
        }
    }

    @Test func rejectAPromptAsFraud() async throws {
        try await Self.withEnrolledCluster { cluster, sim in
            let push = try await sim.plusAuthPush(.init(type: "prompt"))
            let approval = try await Self.pending(cluster)
            let deny = try await cluster.pushctl(["deny", approval.id, "--fraud"])
            #expect(deny.status == 0, "deny: \(deny.stderr)")
            let answer = try await sim.plusAuthAnswer(to: push.pushId)
            #expect(answer.outcome == .denied && answer.rejectReason == "fraud_suspicion" && answer.verified)
            let final = try await cluster.client.approval(approval.id)
            #expect(final.state == .denied && final.resolution?.reason == .fraud)
        }
    }

    @Test func expiredContextIsRefused() async throws {
        try await Self.withEnrolledCluster { cluster, sim in
            _ = try await sim.plusAuthPush(.init(type: "prompt", ttl: 60, expired: true))
            let rejected = try await cluster.rejectedPush(.expired)
            #expect(rejected.provider == .plusauth && rejected.message.hasPrefix("PlusAuth context expired at "))
            #expect(try await cluster.client.approvals().isEmpty)
        }
    }

    @Test func tamperedContextIsRefusedLoggedAndKept() async throws {
        try await Self.withEnrolledCluster { cluster, sim in
            _ = try await sim.plusAuthPush(.init(type: "code", tampered: true))
            let rejected = try await cluster.rejectedPush(.badSignature)
            #expect(rejected.message.contains("the signature matches none of the 1 enrolled PlusAuth account key(s)"))
            #expect(try await cluster.client.approvals().isEmpty)
            let history = try await cluster.pushctl(["history"])
            #expect(history.stdout.contains("bad_signature"), "\(history.stdout)")
            try await eventually("the daemon logs the rejection with its reason") {
                cluster.daemon?.text.contains("push rejected: PlusAuth context: the signature matches none") == true
            }
        }
    }

    @Test func aResentContextIsOneApproval() async throws {
        try await Self.withEnrolledCluster { cluster, sim in
            let first = try await sim.plusAuthPush(.init(type: "prompt"))
            _ = try await sim.plusAuthPush(.init(pushId: first.pushId))
            _ = try await Self.pending(cluster)
            _ = try await sim.plusAuthPush(.init(type: "code"))
            try await eventually("the later push arrives") { try await cluster.client.approvals().count >= 2 }
            #expect(try await cluster.client.approvals().count == 2, "the duplicate delivery made no second approval")
        }
    }

    @Test func rs256KeysAndTheResolveFallback() async throws {
        try await Self.withEnrolledCluster(environment: ["PUSHAGENT_PLUSAUTH_KEY_ALGORITHM": "RS256"]) { cluster, sim in
            #expect(try await sim.plusAuthRegistrations().first?.algorithm == "RS256")
            // The context's resolve_url answers 404: the answer goes to …/resolve-challenge on the same origin.
            let push = try await sim.plusAuthPush(.init(type: "code", resolvePath: "/push-authenticator/gone"))
            let approval = try await Self.pending(cluster)
            let approve = try await cluster.pushctl(["approve", approval.id, "--number", try #require(push.correctValue)])
            #expect(approve.status == 0, "approve: \(approve.stderr)")
            let answer = try await sim.plusAuthAnswer(to: push.pushId)
            #expect(answer.outcome == .approved && answer.verified)
            #expect(answer.endpoint == "/push-authenticator/resolve-challenge")
        }
    }
}
