import ClusterHarness
import ControlClient
import ControlWire
import Foundation
import PushAgentCore
import PushSim
import Testing

/// Approvals of kind verify (ForgeRock's biometric push) need the operator's login password, checked through PAM,
/// unless the operator is root. pushagentd and pushctl run as `nobody`, the daemon's own non-root user, against a
/// private PAM service whose pam_exec script knows one password.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct UserVerificationTests {
    static let nobody: UInt32 = 65534
    static let password = "correct horse battery"

    static func withNobodyDaemon(_ body: (Cluster, SimAdminClient) async throws -> Void) async throws {
        try await Cluster.run { cluster in
            let pam = try PAMTestService(in: cluster.directory, password: password)
            try await cluster.startDaemon(extraEnvironment: [
                "HOME": cluster.directory, "PUSHAGENT_USER_VERIFICATION_PAM_DIR": pam.directory,
            ], asUID: nobody)
            let sim = SimAdminClient(baseURL: cluster.simURL)
            let enroll = try await cluster.pushctl(["enroll", try await sim.enrollURI(.init(account: "alice"))], asUID: nobody)
            #expect(enroll.status == 0, "enroll failed: \(enroll.stderr)")
            try await body(cluster, sim)
        }
    }

    static func biometricPush(_ cluster: Cluster, _ sim: SimAdminClient) async throws -> (SimAdminAPI.PushResponse, Approval) {
        let push = try await sim.push(.init(type: "biometric", message: "Sign in with your fingerprint?"))
        var approval: Approval?
        try await eventually("the approval arrives") {
            approval = try await cluster.client.approvals(state: .pending).first { $0.message.contains("fingerprint") }
            return approval != nil
        }
        let found = try #require(approval)
        #expect(found.kind == .verify)
        return (push, found)
    }

    @Test func theOperatorsPasswordApprovesAndNothingElseDoes() async throws {
        try await Self.withNobodyDaemon { cluster, sim in
            let (push, approval) = try await Self.biometricPush(cluster, sim)

            let stated = try await cluster.pushctl(["approve", approval.id, "--user-verified"], asUID: Self.nobody)
            #expect(stated.status == 1, "only root may state it: \(stated.stderr)")
            #expect(stated.stderr.contains("user_verified is accepted from root only"), "\(stated.stderr)")
            #expect(stated.stderr.contains("asks for your login password"), "says how: \(stated.stderr)")
            let raw = try await CommandResult.run("/usr/bin/curl", [
                "-s", "-w", " %{http_code}", "--unix-socket", cluster.socketPath, "-X", "POST",
                "-d", #"{"user_verified": true}"#, "http://agent/v1/approvals/\(approval.id)/approve",
            ], asUID: Self.nobody)
            #expect(raw.stdout.hasSuffix(" 403") && raw.stdout.contains(#""code":"forbidden""#), "\(raw.stdout)")

            let withoutTerminal = try await cluster.pushctl(["approve", approval.id], asUID: Self.nobody)
            #expect(withoutTerminal.status == 1, "\(withoutTerminal.stderr)")
            #expect(withoutTerminal.stderr.contains("--password-fd"), "says how: \(withoutTerminal.stderr)")

            let wrong = try await CommandResult.run(Binaries.path("pushctl"), [
                "--socket", cluster.socketPath, "approve", approval.id, "--password-fd", "0",
            ], asUID: Self.nobody, input: "not the password\n")
            #expect(wrong.status == 1, "\(wrong.stderr)")
            #expect(wrong.stderr.contains("user verification failed for nobody: "), "\(wrong.stderr)")
            #expect(try await cluster.client.approval(approval.id).state == .pending)
            let audit = try await CommandResult.run("/usr/bin/sqlite3", [
                cluster.stateDirectory + "/agent.sqlite",
                "SELECT peer_uid, subject, detail FROM audit WHERE event = 'verify_failed'",
            ])
            #expect(audit.stdout == "\(Self.nobody)|\(approval.id)|user=nobody\n", "audited: \(audit.stdout)\(audit.stderr)")
            // A wrong password makes the next try wait a second (docs/control-api.md, "User verification").
            try await Task.sleep(for: .seconds(1.1))

            let right = try await CommandResult.run(Binaries.path("pushctl"), [
                "--socket", cluster.socketPath, "approve", approval.id, "--password-fd", "0",
            ], asUID: Self.nobody, input: Self.password + "\n")
            #expect(right.status == 0, "\(right.stderr)")
            #expect(right.stdout.contains("\(approval.id) approved"), "\(right.stdout)")
            let answer = try await sim.answer(to: push.messageId)
            #expect(answer.outcome == .approved && answer.verified, "pushsim: \(answer.error ?? "")")
            #expect(!cluster.daemon!.text.contains(Self.password), "the password is never logged")
        }
    }

    @Test func rootMayStateTheUserWasVerified() async throws {
        try await Self.withNobodyDaemon { cluster, sim in
            let (push, approval) = try await Self.biometricPush(cluster, sim)
            // This test runs as root: the daemon sees peer uid 0.
            let missing = await #expect(throws: ControlClientError.self) { _ = try await cluster.client.approve(approval.id) }
            #expect(missing?.description.contains("requires user verification") == true, "\(String(describing: missing))")
            let approved = try await cluster.client.approve(approval.id, userVerified: true)
            #expect(approved.state == .approved)
            let answer = try await sim.answer(to: push.messageId)
            #expect(answer.outcome == .approved && answer.verified, "pushsim: \(answer.error ?? "")")
        }
    }
}
