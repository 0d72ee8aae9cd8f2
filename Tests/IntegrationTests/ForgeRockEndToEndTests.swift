import ClusterHarness
import ControlWire
import Foundation
import PushAgentCore
import PushSim
import Testing

/// The whole pipeline with real processes: pushsim → pushrelay → pushagentd → pushctl → pushsim.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct ForgeRockEndToEndTests {
    /// A running cluster with one enrolled ForgeRock account.
    static func withEnrolledCluster(_ body: (Cluster, SimAdminClient) async throws -> Void) async throws {
        try await Cluster.run { cluster in
            try await cluster.startDaemon()
            let sim = SimAdminClient(baseURL: cluster.simURL)
            let enroll = try await cluster.pushctl(["enroll", try await sim.enrollURI(.init(account: "alice"))])
            #expect(enroll.status == 0, "enroll failed: \(enroll.stderr)")
            try await body(cluster, sim)
        }
    }

    static func pending(_ cluster: Cluster, count: Int = 1) async throws -> [Approval] {
        var approvals: [Approval] = []
        try await eventually("\(count) pending approval(s)") {
            approvals = try await cluster.client.approvals(state: .pending)
            return approvals.count >= count
        }
        return approvals
    }

    @Test func approvePromptPush() async throws {
        try await Self.withEnrolledCluster { cluster, sim in
            let beforePush = MonotonicTime.nanoseconds()
            let push = try await sim.push(.init(type: "default", message: "Sign in to the wiki?"))
            // What pushbench times "push sent" from.
            let sendStarted = try #require(push.sendStartedNs)
            #expect((beforePush...MonotonicTime.nanoseconds()).contains(sendStarted))
            let approval = try #require(try await Self.pending(cluster).first)

            let list = try await cluster.pushctl(["list"])
            #expect(list.status == 0)
            #expect(list.stdout.contains(approval.id))
            #expect(list.stdout.contains("Sign in to the wiki?"))
            #expect(approval.kind == .prompt)
            #expect(approval.provider == .forgerock)
            let shown = try await cluster.pushctl(["show", String(approval.id.prefix(8))])
            #expect(shown.stdout.contains("user: alice"), "context shown: \(shown.stdout)")

            let withNumber = try await cluster.pushctl(["approve", approval.id, "--number", "42"])
            #expect(withNumber.status == 2 && withNumber.stderr.contains("takes no number"),
                    "a number for a prompt is a usage error: \(withNumber.stderr)")
            _ = try await sim.push(.init(type: "default", message: "A second sign-in, so that apr_ is ambiguous"))
            try await eventually("two are pending") { try await cluster.client.approvals(state: .pending).count == 2 }
            let ambiguous = try await cluster.pushctl(["approve", "apr_"])
            #expect(ambiguous.status == 2 && ambiguous.stderr.contains("apr_"), "an ambiguous prefix is a usage error: \(ambiguous.stderr)")
            #expect(try await cluster.client.approvals(state: .pending).count == 2)

            let approve = try await cluster.pushctl(["approve", String(approval.id.prefix(10))])
            #expect(approve.status == 0, "approve: \(approve.stderr)")
            #expect(approve.stdout.contains("approved"))
            let answer = try await sim.answer(to: push.messageId)
            #expect(answer.outcome == .approved)
            #expect(answer.verified)
            #expect(try await cluster.client.approval(approval.id).state == .approved)

            let again = try await cluster.pushctl(["approve", approval.id])
            #expect(again.status == 5, "a second answer is a conflict: \(again.stderr)")
        }
    }

    @Test func watchPrintsEventsAsTheyHappen() async throws {
        try await Self.withEnrolledCluster { cluster, sim in
            let watch = try ManagedProcess(name: "pushctl watch", executable: Binaries.path("pushctl"),
                                           arguments: ["--socket", cluster.socketPath, "watch"])
            let json = try ManagedProcess(name: "pushctl --json watch", executable: Binaries.path("pushctl"),
                                          arguments: ["--socket", cluster.socketPath, "--json", "watch"])
            // The stream opens with the relay's state: from then on no event is missed.
            try await eventually("both watchers are subscribed") {
                watch.text.contains("relay.state relay connected") && json.text.contains(#""type":"relay.state""#)
            }
            _ = try await sim.push(.init(type: "challenge", message: "Watched sign-in"))
            let approval = try #require(try await Self.pending(cluster).first)
            try await eventually("watch prints the new approval") {
                watch.text.contains("approval.created \(approval.id) pending: Watched sign-in (choose: ")
            }
            try await eventually("--json watch prints the event as NDJSON") {
                json.text.split(separator: "\n").contains { line in
                    line.hasPrefix("{") && line.contains(#""type":"approval.created""#) && line.contains(approval.id)
                }
            }
            _ = try await cluster.pushctl(["deny", approval.id])
            try await eventually("watch prints the answer") { watch.text.contains("\(approval.id) denied") }

            await cluster.daemon?.stop()
            let exit = try await watch.waitForExit()
            #expect(exit.status == 0 && !exit.signaled, "watch ends with the daemon: \(watch.text)")
            await json.stop()
        }
    }

    @Test func denyPush() async throws {
        try await Self.withEnrolledCluster { cluster, sim in
            // A provider's text reaches the terminal without its escape and bidi controls.
            let push = try await sim.push(.init(message: "Sign in\u{1B}[2J?\u{202E}dlrow"))
            let approval = try #require(try await Self.pending(cluster).first)
            for output in [try await cluster.pushctl(["list"]).stdout, try await cluster.pushctl(["show", approval.id]).stdout] {
                #expect(output.contains("Sign in?[2J??dlrow") && !output.contains("\u{1B}") && !output.contains("\u{202E}"),
                        "\(output)")
            }
            let deny = try await cluster.pushctl(["deny", approval.id])
            #expect(deny.status == 0, "deny: \(deny.stderr)")
            let answer = try await sim.answer(to: push.messageId)
            #expect(answer.outcome == .denied)
            #expect(answer.verified)
            #expect(try await cluster.client.approval(approval.id).state == .denied)
        }
    }

    @Test func numberChallengeNeedsTheRightNumber() async throws {
        try await Self.withEnrolledCluster { cluster, sim in
            let push = try await sim.push(.init(type: "challenge"))
            let approval = try #require(try await Self.pending(cluster).first)
            #expect(approval.kind == .number)
            #expect(approval.numbers == push.numbers)

            let withoutNumber = try await cluster.pushctl(["approve", approval.id])
            #expect(withoutNumber.status == 2, "a value the daemon refuses is a usage error")
            #expect(withoutNumber.stderr.contains("--number"), "says how to fix it: \(withoutNumber.stderr)")
            let notAChoice = try await cluster.pushctl(["approve", approval.id, "--number", "100"])
            #expect(notAChoice.status == 2)
            #expect(try await cluster.client.approval(approval.id).state == .pending, "a refused answer changes nothing")

            let correct = try #require(push.correctNumber)
            let approve = try await cluster.pushctl(["approve", approval.id, "--number", correct])
            #expect(approve.status == 0, "approve: \(approve.stderr)")
            let answer = try await sim.answer(to: push.messageId)
            #expect(answer.outcome == .approved)
            #expect(answer.number == correct)
        }
    }

    @Test func expiredPushIsRefusedLocally() async throws {
        try await Self.withEnrolledCluster { cluster, sim in
            let longAgo = Int64((Date().timeIntervalSince1970 - 600) * 1000)
            _ = try await sim.push(.init(ttl: 60, issuedAtMs: longAgo))
            try await eventually("the rejection is in history") {
                try await cluster.client.history().contains { $0.rejectedPush?.reason == .expired }
            }
            #expect(try await cluster.client.approvals(state: nil).isEmpty)
            let history = try await cluster.pushctl(["history"])
            #expect(history.stdout.contains("expired"))
        }
    }

    @Test func duplicateDeliveryCreatesOneApproval() async throws {
        try await Self.withEnrolledCluster { cluster, sim in
            let first = try await sim.push()
            _ = try await sim.push(.init(messageId: first.messageId))
            _ = try await Self.pending(cluster)
            let marker = try await sim.push(.init(message: "marker"))
            try await eventually("the marker push arrives") {
                try await cluster.client.approvals(state: .pending).contains { $0.message == "marker" }
            }
            let approvals = try await cluster.client.approvals(state: nil)
            #expect(approvals.count == 2, "one approval for the duplicated messageId, one for the marker: \(approvals.map(\.message))")
            _ = marker
        }
    }

    @Test func unknownAndForgedPushesAreRejectedAndKept() async throws {
        try await Self.withEnrolledCluster { cluster, _ in
            let relay = RelaySender(baseURL: cluster.relayURL, project: Cluster.project, key: Cluster.senderKey)
            let token = try #require(try await cluster.client.status().pushToken)
            try await relay.send(token: token, data: ["hello": "world"])
            try await relay.send(token: token, data: [
                "messageId": "AUTHENTICATE:forged", "message": "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJjIjoiYWJjIiwidSI6Im5vYm9keSJ9.c2lnbmF0dXJl"])
            try await eventually("both rejections are in history") {
                let reasons = try await cluster.client.history().compactMap { $0.rejectedPush?.reason }
                return reasons.contains(.unknownDialect) && reasons.contains(.unknownAccount)
            }
            #expect(try await cluster.client.status().relay.state == .connected, "bad pushes do not break the loop")
        }
    }
}
