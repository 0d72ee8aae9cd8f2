import ClusterHarness
import ControlWire
import Foundation
import PushAgentCore
import PushSim
import Testing

/// Hyphen through the real processes: pushsim (Hyphen + a Flow access node) → pushrelay → pushagentd → pushctl.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct HyphenEndToEndTests {
    struct Setup {
        var cluster: Cluster
        var sim: SimAdminClient
        var account: String
        var email: String
        var credential: String
    }

    /// A cluster with one Hyphen account enrolled (not yet signed in).
    static func withEnrolledAccount(existingDevice: Bool, _ body: (Setup) async throws -> Void) async throws {
        let cluster = try await Cluster()
        do {
            try await cluster.startDaemon()
            let sim = SimAdminClient(baseURL: cluster.simURL)
            let email = existingDevice ? "bob@example.com" : "alice@example.com"
            let user = try await sim.hyphenUser(.init(email: email, existingDevice: existingDevice))
            let enroll = try await cluster.pushctl(["--json", "enroll", user.uri])
            #expect(enroll.status == 0, "enroll failed: \(enroll.stderr)")
            let account = try ControlJSON.decoder().decode(Account.self, from: Data(enroll.stdout.utf8))
            #expect(account.provider == .hyphen && account.issuer == "PushSim" && account.name == email)
            try await body(Setup(cluster: cluster, sim: sim, account: account.id, email: email, credential: user.credential))
        } catch {
            print("pushagentd output:\n\(cluster.daemon?.text ?? "")\npushsim output:\n\(cluster.sim?.text ?? "")")
            await cluster.stopAll()
            throw error
        }
        await cluster.stopAll()
    }

    /// The agent signed up as the first device of a new account: it can then be asked to approve other sign-ins.
    static func withSignedInAgent(_ body: (Setup) async throws -> Void) async throws {
        try await withEnrolledAccount(existingDevice: false) { setup in
            let signIn = try await setup.cluster.pushctl(["hyphen", "signin", "--account", setup.account, "--credential", setup.credential])
            #expect(signIn.status == 0, "sign-in failed: \(signIn.stderr)")
            #expect(signIn.stdout.contains("completed: This device is the first device of a new Hyphen account"), "\(signIn.stdout)")
            try await body(setup)
        }
    }

    /// `pushctl hyphen signin` in the background: it waits for the phone.
    static func startSignIn(_ setup: Setup) throws -> ManagedProcess {
        try ManagedProcess(name: "pushctl hyphen signin", executable: Binaries.path("pushctl"), arguments: [
            "--socket", setup.cluster.socketPath, "hyphen", "signin", "--account", setup.account, "--credential", setup.credential])
    }

    static func pendingApproval(_ cluster: Cluster) async throws -> Approval {
        var approval: Approval?
        try await eventually("a pending approval") {
            approval = try await cluster.client.approvals(state: .pending).first
            return approval != nil
        }
        return approval!
    }

    @Test func approveRunsASignedSealedTransaction() async throws {
        try await Self.withSignedInAgent { setup in
            let id = try await setup.sim.hyphenPush().id
            let approval = try await Self.pendingApproval(setup.cluster)
            #expect(approval.provider == .hyphen && approval.kind == .prompt)
            let list = try await setup.cluster.pushctl(["list"])
            #expect(list.stdout.contains(approval.id) && list.stdout.contains("to sign in as alice@example.com?"), "\(list.stdout)")
            let shown = try await setup.cluster.pushctl(["show", approval.id])
            for fact in ["Sign-in to PushSim", "app: PushSim", "ip: 127.0.0.1", "location: Seoul, KR",
                         "browser: iPhone 15 Pro (iOS 17.1, Apple iPhone16,1)"] {
                #expect(shown.stdout.contains(fact), "show lacks '\(fact)': \(shown.stdout)")
            }

            let approve = try await setup.cluster.pushctl(["approve", approval.id])
            #expect(approve.status == 0, "approve: \(approve.stderr)")
            #expect(approve.stdout.contains("\(approval.id) approved"), "\(approve.stdout)")
            let answer = try await setup.sim.hyphenAnswer(to: id)
            #expect(answer.outcome == .approved && answer.verified, "pushsim: \(answer.error ?? "")")
            let txId = try #require(answer.txId)
            let transaction = try #require(try await setup.sim.hyphenTransactions().first { $0.id == txId })
            #expect(transaction.status == "Sealed")
            #expect(transaction.script.contains("signer.keys.add"), "the request's script ran")
            #expect(Set(transaction.payloadSigners.map { String($0.split(separator: "#")[1]) }) == ["0", "1"],
                    "Hyphen's server key (#0) and the device key (#1) signed the payload: \(transaction.payloadSigners)")
            #expect(transaction.envelopeSigners == ["0xe22cea2c515f26e6#0"], "the paymaster signed the envelope")
            try await eventually("the approval is recorded as approved") {
                try await setup.cluster.client.approval(approval.id).state == .approved
            }

            let again = try await setup.cluster.pushctl(["approve", approval.id])
            #expect(again.status == 5, "a second answer is a conflict: \(again.stderr)")
        }
    }

    @Test func denySendsTheDelete() async throws {
        try await Self.withSignedInAgent { setup in
            let id = try await setup.sim.hyphenPush().id
            let approval = try await Self.pendingApproval(setup.cluster)
            let deny = try await setup.cluster.pushctl(["deny", approval.id])
            #expect(deny.status == 0, "deny: \(deny.stderr)")
            let answer = try await setup.sim.hyphenAnswer(to: id)
            #expect(answer.outcome == .denied && answer.txId == nil)
            #expect(try await setup.sim.hyphenTransactions().isEmpty, "denying sends no transaction")
        }
    }

    @Test func aRequestThatCannotBeApprovedFailsWithAClearError() async throws {
        try await Self.withSignedInAgent { setup in
            // Hyphen's documentation shows a hex placeholder where the SDKs expect {"cadence": …}.
            _ = try await setup.sim.hyphenPush(.init(message: "faceb00ccafebabedeadbeefbadf00de")).id
            let approval = try await Self.pendingApproval(setup.cluster)
            let approve = try await setup.cluster.pushctl(["approve", approval.id])
            #expect(approve.status == 1, "\(approve.stdout)")
            #expect(approve.stderr.contains("is not a {\"cadence\": …} transaction"), "\(approve.stderr)")
            let failed = try await setup.cluster.client.approval(approval.id)
            #expect(failed.state == .failed && failed.error?.contains("deny it") == true)
            #expect(try await setup.sim.hyphenTransactions().isEmpty)
        }
    }

    @Test func expiredRequestIsRefusedLocally() async throws {
        try await Self.withSignedInAgent { setup in
            _ = try await setup.sim.hyphenPush(.init(expiresIn: -60)).id
            try await eventually("the expired push is in history") {
                try await setup.cluster.client.history().contains { $0.rejectedPush?.reason == .expired }
            }
            #expect(try await setup.cluster.client.approvals(state: nil).isEmpty)

            let id = try await setup.sim.hyphenPush(.init(expiresIn: 5)).id
            let approval = try await Self.pendingApproval(setup.cluster)
            try await Task.sleep(for: .seconds(approval.expiresAt.timeIntervalSinceNow + 1))
            let late = try await setup.cluster.pushctl(["approve", approval.id])
            #expect(late.status == 5, "approving after expiry is refused here: \(late.stdout) \(late.stderr)")
            #expect(try await setup.sim.hyphenAnswers().allSatisfy { $0.id != id }, "nothing was sent to Hyphen")
            #expect(try await setup.sim.hyphenTransactions().isEmpty, "no transaction was submitted")
        }
    }

    @Test func signInCompletesWhenThePhoneApproves() async throws {
        try await Self.withEnrolledAccount(existingDevice: true) { setup in
            let waiting = try Self.startSignIn(setup)
            let request = try await setup.sim.hyphenPendingSignIn(for: setup.email)
            // Hyphen holds the sign-in as soon as it answered; the agent records it just after, so look until it has.
            var listed = ""
            try await eventually("pushctl requests shows the pending sign-in") {
                listed = try await setup.cluster.pushctl(["requests"]).stdout
                return listed.contains("pending")
            }
            #expect(listed.contains("Approve this sign-in on your other device (Pixel 8"), "\(listed)")
            _ = try await setup.sim.hyphenDecide(request.id, approve: true)
            let exit = try await waiting.waitForExit(timeout: .seconds(30))
            #expect(exit.status == 0, "signin: \(waiting.text)")
            #expect(waiting.text.contains("completed"), "\(waiting.text)")
            let made = try #require(try await setup.cluster.client.requests().first)
            #expect(made.state == .completed && made.remoteId == request.id && made.txId != nil)

            // Now a device of the account, the agent can approve another sign-in with its own key.
            let id = try await setup.sim.hyphenPush(.init(email: setup.email)).id
            let approval = try await Self.pendingApproval(setup.cluster)
            #expect(try await setup.cluster.pushctl(["approve", approval.id]).status == 0)
            let answer = try await setup.sim.hyphenAnswer(to: id)
            #expect(answer.outcome == .approved && answer.verified, "pushsim: \(answer.error ?? "")")

            // Signing in again needs no other device: the device-key challenge.
            let again = try await setup.cluster.pushctl(["hyphen", "signin", "--account", setup.account, "--credential", setup.credential])
            #expect(again.status == 0 && again.stdout.contains("completed: Signed in with this device's key"), "\(again.stdout) \(again.stderr)")
        }
    }

    @Test func signInFailsCleanlyWhenThePhoneDenies() async throws {
        try await Self.withEnrolledAccount(existingDevice: true) { setup in
            let waiting = try Self.startSignIn(setup)
            let request = try await setup.sim.hyphenPendingSignIn(for: setup.email)
            _ = try await setup.sim.hyphenDecide(request.id, approve: false)
            let exit = try await waiting.waitForExit(timeout: .seconds(30))
            #expect(exit.status == 1, "a denied sign-in fails: \(waiting.text)")
            #expect(waiting.text.contains("denied"), "\(waiting.text)")
            let made = try #require(try await setup.cluster.client.requests().first)
            #expect(made.state == .denied)
            let wait = try await setup.cluster.pushctl(["wait", made.id])
            #expect(wait.status == 1 && wait.stderr.contains("denied"), "\(wait.stderr)")
        }
    }

    @Test func signInFallsBackToPollingWithoutAPush() async throws {
        try await Self.withEnrolledAccount(existingDevice: true) { setup in
            let started = try await setup.cluster.client.hyphenSignIn(account: setup.account, credential: setup.credential)
            #expect(started.state == .pending)
            let request = try await setup.sim.hyphenPendingSignIn(for: setup.email)
            _ = try await setup.sim.hyphenDecide(request.id, approve: true, push: false)
            let final = try await setup.cluster.client.request(started.id, wait: 30)
            #expect(final.state == .completed, "polling found the approval: \(final.error ?? "")")
            #expect(setup.cluster.daemon?.text.contains("polling found it approved") == true)
        }
    }

    @Test func signInSurvivesADaemonRestart() async throws {
        try await Self.withEnrolledAccount(existingDevice: true) { setup in
            let started = try await setup.cluster.client.hyphenSignIn(account: setup.account, credential: setup.credential)
            let request = try await setup.sim.hyphenPendingSignIn(for: setup.email)
            await setup.cluster.daemon?.stop()
            // The status push waits at the relay while the daemon is down.
            try await setup.sim.hyphenDecide(request.id, approve: true)
            try await setup.cluster.startDaemon()
            let final = try await setup.cluster.client.request(started.id, wait: 30)
            #expect(final.state == .completed, "resumed and finished after the restart: \(final.error ?? "")")
        }
    }

    @Test func statusChangeForAnUnknownRequestIsKeptInHistory() async throws {
        try await Self.withEnrolledAccount(existingDevice: true) { setup in
            let started = try await setup.cluster.client.hyphenSignIn(account: setup.account, credential: setup.credential)
            let request = try await setup.sim.hyphenPendingSignIn(for: setup.email)
            let device = HyphenDevice.linux(publicKey: request.requesterPublicKey, pushToken: "t", name: "this", osVersion: "6")
            let phone = HyphenDevice.linux(publicKey: "00", pushToken: "p", name: "phone", osVersion: "14")
            let stray = Hyphen2FAStatus(
                id: "not-a-request-of-ours", accountId: nil, status: .approved, expiresAt: "2030-01-01T00:00:00Z",
                result: .init(txId: "ff"), request: .init(
                    id: "r", app: .init(appId: "a", appName: "PushSim"), userOpInfo: .init(type: "sign-in", signIn: nil),
                    srcDevice: device, destDevice: phone, requestedAt: "2030-01-01T00:00:00Z", message: "{}"))
            let relay = RelaySender(baseURL: setup.cluster.relayURL, project: Cluster.project, key: Cluster.senderKey)
            let token = try #require(try await setup.cluster.client.status().pushToken)
            try await relay.send(token: token, data: [
                "hyphen:type": "2fa-status-change",
                "hyphen:data": String(decoding: try JSONEncoder().encode(HyphenSignIn2FA(twoFactorAuth: stray)), as: UTF8.self)])
            try await eventually("the stray status change is in history") {
                try await setup.cluster.client.history().contains {
                    $0.rejectedPush?.reason == .unknownRequest && $0.rejectedPush?.message.contains("not-a-request-of-ours") == true
                }
            }
            #expect(try await setup.cluster.client.request(started.id).state == .pending, "the real request is untouched")
            let history = try await setup.cluster.pushctl(["history"])
            #expect(history.stdout.contains("unknown_request"), "\(history.stdout)")
        }
    }
}
