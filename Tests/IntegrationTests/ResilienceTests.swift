import ClusterHarness
import ControlWire
import Foundation
import PushAgentCore
import PushSim
import Testing

/// Crashes, relay outages and access control, with the real processes.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct ResilienceTests {
    /// `nobody`: neither root, nor the daemon's user, nor an operator.
    static let nobody: UInt32 = 65534

    @Test(arguments: ["kill-before-commit", "kill-after-commit"])
    func killNineBetweenReceiveAndAckLeavesExactlyOneApproval(fault: String) async throws {
        try await Cluster.run { cluster in
            try await cluster.startDaemon()
            let sim = SimAdminClient(baseURL: cluster.simURL)
            #expect(try await cluster.pushctl(["enroll", try await sim.enrollURI()]).status == 0)
            await cluster.daemon?.stop()

            try await cluster.startDaemon(extraEnvironment: ["PUSHAGENT_TEST_FAULT": fault])
            let push = try await sim.push(.init(message: "survives a crash"))
            let exit = try #require(try await cluster.daemon?.waitForExit())
            #expect(exit.signaled && exit.status == SIGKILL, "the fault killed the daemon with SIGKILL")

            try await cluster.startDaemon()
            try await eventually("the approval exists after the restart") {
                try await !cluster.client.approvals(state: .pending).isEmpty
            }
            _ = try await sim.push(.init(message: "marker"))
            try await eventually("a later push arrives too") {
                try await cluster.client.approvals(state: .pending).contains { $0.message == "marker" }
            }
            let survivors = try await cluster.client.approvals(state: nil).filter { $0.message == "survives a crash" }
            #expect(survivors.count == 1, "exactly one approval for \(push.messageId), got \(survivors.count)")
        }
    }

    @Test func sigtermExitsCleanlyAndStateSurvives() async throws {
        try await Cluster.run { cluster in
            // Long-polls of 60 s, so a shutdown that waited for one would show.
            try await cluster.startDaemon(extraEnvironment: ["PUSHAGENT_POLL_WAIT_SECONDS": "60"])
            let sim = SimAdminClient(baseURL: cluster.simURL)
            #expect(try await cluster.pushctl(["enroll", try await sim.enrollURI()]).status == 0)
            _ = try await sim.push(.init(message: "still here after a restart"))
            try await eventually("a push arrives") { try await !cluster.client.approvals(state: .pending).isEmpty }

            let started = ContinuousClock.now
            cluster.daemon?.signal(SIGTERM)
            let exit = try #require(try await cluster.daemon?.waitForExit())
            #expect(!exit.signaled && exit.status == 0, "SIGTERM ends pushagentd with status 0")
            #expect(ContinuousClock.now - started < .seconds(15), "a waiting long-poll does not hold the shutdown")
            #expect(!FileManager.default.fileExists(atPath: cluster.socketPath), "the socket is removed")

            try await cluster.startDaemon()
            let approvals = try await cluster.client.approvals(state: .pending)
            #expect(approvals.map(\.message) == ["still here after a restart"])
            #expect(try await cluster.client.accounts().count == 1)
        }
    }

    @Test func providerDownRetriesUntilExpiryThenFails() async throws {
        try await Cluster.run { cluster in
            try await cluster.startDaemon(extraEnvironment: ["PUSHAGENT_ANSWER_WAIT_SECONDS": "1"])
            let sim = SimAdminClient(baseURL: cluster.simURL)
            #expect(try await cluster.pushctl(["enroll", try await sim.enrollURI()]).status == 0)
            _ = try await sim.push(.init(ttl: 6))
            try await eventually("a push arrives") { try await !cluster.client.approvals(state: .pending).isEmpty }
            let approval = try #require(try await cluster.client.approvals(state: .pending).first)
            await cluster.sim.stop()

            let approve = try await cluster.pushctl(["approve", approval.id])
            #expect(approve.status == 0, "accepted locally: \(approve.stderr)")
            #expect(approve.stdout.contains("still sending"), "says the answer is in flight: \(approve.stdout)")
            try await eventually("the answer gives up at expiry", timeout: .seconds(15)) {
                try await cluster.client.approval(approval.id).state == .failed
            }
            let failed = try await cluster.client.approval(approval.id)
            #expect(failed.error?.contains("could not be reached") == true, "error: \(failed.error ?? "")")
            #expect(cluster.daemon?.text.contains("retrying") == true, "each retry is logged")
        }
    }

    @Test func secondDaemonOnTheSameStateRefusesToStart() async throws {
        try await Cluster.run { cluster in
            try await cluster.startDaemon()
            let second = try ManagedProcess(name: "second pushagentd", executable: Binaries.path("pushagentd"), arguments: [
                "--state-dir", cluster.stateDirectory, "--socket", cluster.directory + "/second.sock", "--relay", cluster.relayURL])
            let exit = try await second.waitForExit()
            #expect(exit.status == 1)
            #expect(second.text.contains("already running"), "says why: \(second.text)")
            #expect(try await cluster.client.status().relay.state == .connected, "the first one is untouched")
        }
    }

    @Test func daemonRecoversWhenTheRelayComesUpLater() async throws {
        try await Cluster.run(startRelay: false) { cluster in
            // Backoffs of 3–6 s, so that the status read below still finds the daemon waiting, not already retrying.
            try await cluster.startDaemon(extraEnvironment: ["PUSHAGENT_BACKOFF_INITIAL_SECONDS": "6",
                                                             "PUSHAGENT_BACKOFF_MAX_SECONDS": "6"], waitForRelay: false)
            try await eventually("status shows the backoff") {
                let relay = try await cluster.client.status().relay
                return relay.state == .backoff && relay.lastError != nil && relay.nextTryAt != nil
            }
            let status = try await cluster.pushctl(["status"])
            #expect(status.stdout.contains("backoff"), "status: \(status.stdout)")
            #expect(status.stdout.contains("last error"))

            try await cluster.startRelay()
            try await eventually("the daemon connects by itself") {
                try await cluster.client.status().relay.state == .connected
            }
            let sim = SimAdminClient(baseURL: cluster.simURL)
            #expect(try await cluster.pushctl(["enroll", try await sim.enrollURI()]).status == 0)
            _ = try await sim.push()
            try await eventually("a push arrives") { try await !cluster.client.approvals(state: .pending).isEmpty }
        }
    }

    /// A relay that stays down is said once in the journal, not at each retry (before: a warning every retry, for
    /// as long as it was down); its coming back is said once too.
    @Test func aRelayThatStaysDownIsLoggedOnceNotAtEachRetry() async throws {
        try await Cluster.run(startRelay: false) { cluster in
            try await cluster.startDaemon(extraEnvironment: ["PUSHAGENT_BACKOFF_INITIAL_SECONDS": "0.1",
                                                             "PUSHAGENT_BACKOFF_MAX_SECONDS": "0.3"], waitForRelay: false)
            // 0.05-0.3 s apart: a dozen retries or more in 4 s.
            try await Task.sleep(for: .seconds(4))
            let journal = cluster.daemon?.text ?? ""
            let failures = journal.split(separator: "\n").filter { $0.contains("relay: ") && $0.contains("reconnecting in") }
            #expect(failures.count == 1, "\(journal)")
            try await cluster.startRelay()
            try await eventually("the daemon connects by itself") {
                try await cluster.client.status().relay.state == .connected
            }
            #expect(cluster.daemon?.text.components(separatedBy: "relay: connected to").count == 2)
        }
    }

    @Test(.enabled(if: getuid() == 0, "runs pushctl as another user, which needs root"))
    func nonOperatorCanListButNotApproveOrReadCodes() async throws {
        try await Cluster.run { cluster in
            try await cluster.startDaemon()
            let sim = SimAdminClient(baseURL: cluster.simURL)
            #expect(try await cluster.pushctl(["enroll", try await sim.enrollURI(.init(totp: true))]).status == 0)
            _ = try await sim.push()
            try await eventually("a push arrives") { try await !cluster.client.approvals(state: .pending).isEmpty }
            let approval = try #require(try await cluster.client.approvals(state: .pending).first)
            // Let another user reach the socket; SO_PEERCRED still decides what it may do.
            chmod(cluster.directory, 0o755)
            chmod(cluster.socketPath, 0o666)

            let list = try await cluster.pushctl(["list"], asUID: Self.nobody)
            #expect(list.status == 0, "a non-operator can read: \(list.stderr)")
            #expect(list.stdout.contains(approval.id))
            let approve = try await cluster.pushctl(["approve", approval.id], asUID: Self.nobody)
            #expect(approve.status == 1)
            #expect(approve.stderr.contains("may read but not approve"), "says why: \(approve.stderr)")
            #expect(try await cluster.client.approval(approval.id).state == .pending)

            // A TOTP code signs its holder in: reading one takes an operator too.
            let account = try #require(try await cluster.client.accounts().first)
            let code = try await cluster.pushctl(["code", account.id], asUID: Self.nobody)
            #expect(code.status == 1)
            #expect(code.stderr.contains("read codes"), "says why: \(code.stderr)")
            #expect(try await cluster.pushctl(["code", account.id]).status == 0, "root may")
        }
    }
}
