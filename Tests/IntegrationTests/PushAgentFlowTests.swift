import ClusterHarness
import ControlClient
import ControlWire
import Foundation
import PushAgentKit
import Testing

/// PushAgentFlow against the real daemon, for the endings the example program does not show.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct PushAgentFlowTests {
    static let codeChallenge = GitHubOTPTrigger().challenge(
        in: ResponseHead(status: 401, headers: [(name: "X-GitHub-OTP", value: "required; app")]), origin: "https://api.example")!

    @Test func aStepUpNobodyAnswersExpiresAndTheFlowSaysSo() async throws {
        try await StepUpCluster.run { stepUp in
            let flow = PushAgentFlow(socketPath: stepUp.cluster.socketPath, totpAccount: stepUp.account.id, ttlSeconds: 10)
            let error = await #expect(throws: PushAgentFlowError.self) { try await flow.token(for: Self.codeChallenge) }
            guard case .expired(let id)? = error else {
                Issue.record("expected expired, got \(String(describing: error))")
                return
            }
            let approval = try await stepUp.cluster.client.approval(id)
            #expect(approval.state == .expired)
        }
    }

    @Test func aFlowNobodyWaitsForAnyMoreWithdrawsItsStepUp() async throws {
        try await StepUpCluster.run { stepUp in
            let flow = PushAgentFlow(socketPath: stepUp.cluster.socketPath, totpAccount: stepUp.account.id, ttlSeconds: 600)
            let waiting = Task { try await flow.token(for: Self.codeChallenge) }
            let approval = try #require(try await stepUp.pendingStepUps().first)
            waiting.cancel()
            await #expect(throws: CancellationError.self) { try await waiting.value }
            let withdrawn = try await stepUp.cluster.client.approval(approval.id)
            #expect(withdrawn.state == .failed, "not left pending for 10 minutes")
            #expect(withdrawn.error?.contains("withdrawn by") == true, "\(withdrawn.error ?? "")")
            #expect(try await stepUp.cluster.pushctl(["approve", approval.id]).status != 0, "nothing is left to approve")
        }
    }

    @Test func withoutADaemonTheFlowFailsNamingTheSocket() async throws {
        let socket = FileManager.default.temporaryDirectory.appendingPathComponent("no-daemon-\(UUID()).sock").path
        var challenge = Self.codeChallenge
        challenge.credential = .receipt
        let error = await #expect(throws: ControlClientError.self) {
            try await PushAgentFlow(socketPath: socket).token(for: challenge)
        }
        #expect(error?.description.contains(socket) == true, "\(String(describing: error))")
    }

    @Test func aCodeChallengeNeedsAnAccount() async throws {
        await #expect(throws: PushAgentFlowError.noTOTPAccount(Self.codeChallenge)) {
            try await PushAgentFlow(socketPath: "/nonexistent.sock").token(for: Self.codeChallenge)
        }
    }
}
