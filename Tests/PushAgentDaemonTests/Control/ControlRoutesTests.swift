@testable import ControlClient
import ControlWire
import Foundation
@testable import PushAgentDaemon
import PushAgentCore
import Testing

/// The control routes in process, through the real router, middleware and error edge, with the caller known from
/// the socket (the test runs as root, so it may write). Next to, not instead of, the real-process tests.
@Suite struct ControlRoutesTests {
    @Test func approvingANumberChallengeTakesOnlyOneOfItsNumbers() async throws {
        try await InProcessAgent.with { agent in
            let account = try await agent.addAccount()
            let approval = try await agent.pending(.number, of: account, numbers: ["12", "34", "56"])
            try await expectError(.invalidArgument, containing: "needs the number shown") {
                _ = try await agent.client.approve(approval.id)
            }
            try await expectError(.invalidArgument, containing: "not one of the choices") {
                _ = try await agent.client.approve(approval.id, number: "99")
            }
            #expect(try await agent.client.approval(approval.id).state == .pending, "a refused answer changes nothing")
            let answered = try await agent.client.approve(approval.id, number: "34")
            #expect([.approving, .failed].contains(answered.state), "\(answered.state)")
            #expect(answered.resolution?.number == "34")
            try await expectError(.conflict, containing: "already") {
                _ = try await agent.client.deny(approval.id)
            }
        }
    }

    @Test func denyingByIdPrefixRecordsTheReason() async throws {
        try await InProcessAgent.with { agent in
            let account = try await agent.addAccount()
            let approval = try await agent.pending(.prompt, of: account)
            let denied = try await agent.client.deny(String(approval.id.prefix(10)), reason: .fraud)
            #expect(denied.id == approval.id)
            #expect(denied.resolution?.reason == .fraud)
            #expect([.denying, .denied, .failed].contains(denied.state), "\(denied.state)")
        }
    }

    @Test func aFraudDenialMutesTheAccountUntilUnmuted() async throws {
        try await InProcessAgent.with { agent in
            let account = try await agent.addAccount()
            let approval = try await agent.pending(.prompt, of: account)
            _ = try await agent.client.deny(approval.id, reason: .fraud)
            let muted = try #require(try await agent.client.status().mutedAccounts?.first)
            #expect(muted.id == account.id && muted.mutedUntil ?? .distantPast > Date())
            let unmuted = try await agent.client.unmute(account: account.id)
            #expect(!unmuted.isMuted(at: Date()))
            #expect(try await agent.client.status().mutedAccounts?.isEmpty == true)
        }
    }

    @Test func muteTakesSecondsWithinItsBounds() async throws {
        try await InProcessAgent.with { agent in
            let account = try await agent.addAccount()
            let muted = try await agent.client.mute(account: account.id, seconds: 600)
            let until = try #require(muted.mutedUntil)
            #expect(abs(until.timeIntervalSinceNow - 600) < 30)
            try await expectError(.invalidArgument, containing: "30 days") {
                _ = try await agent.client.mute(account: account.id, seconds: 0)
            }
            try await expectError(.notFound) { _ = try await agent.client.mute(account: "acc_nobody") }
        }
    }

    @Test func aVerifyApprovalNeedsTheUserVerifiedFromRoot() async throws {
        try await InProcessAgent.with { agent in
            let account = try await agent.addAccount()
            let approval = try await agent.pending(.verify, of: account)
            try await expectError(.invalidArgument, containing: "requires user verification") {
                _ = try await agent.client.approve(approval.id)
            }
            #expect(try await agent.client.approval(approval.id).state == .pending)
            let answered = try await agent.client.approve(approval.id, userVerified: true)
            #expect([.approving, .failed].contains(answered.state), "\(answered.state)")
            #expect(try await agent.store.auditEntries(event: "approve").count == 1)
        }
    }

    @Test func badRequestsGetTheAPIsErrorBodies() async throws {
        try await InProcessAgent.with { agent in
            try await expectError(.notFound) { _ = try await agent.client.approval("apr_missing") }
            try await expectError(.invalidArgument, containing: "unknown state") {
                let _: ApprovalsResponse = try await agent.client.get("/v1/approvals?state=maybe")
            }
            try await expectError(.invalidArgument, containing: "limit") { _ = try await agent.client.history(limit: 0) }
            let status = try await agent.client.status()
            #expect(status.version == PushAgentVersion.string)
            #expect(status.pushSources?.map(\.name) == [RelayStatus.sourceName, "privacyidea-poll", "edumfa-poll"])
            #expect(status.pushSources?.last?.state == "idle", "no poll-only token is enrolled")
        }
    }

    private func expectError(_ code: ControlError.Code, containing text: String = "",
                             _ call: () async throws -> Void) async throws {
        do {
            try await call()
            Issue.record("expected \(code), got success")
        } catch ControlClientError.api(_, let error) {
            #expect(error.code == code, "\(error)")
            #expect(text.isEmpty || error.message.contains(text), "\(error.message)")
        }
    }
}
