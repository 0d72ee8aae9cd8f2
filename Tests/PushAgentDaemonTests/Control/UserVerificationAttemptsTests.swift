import ClusterHarness
@testable import ControlClient
import ControlWire
import Foundation
@testable import PushAgentDaemon
import PushAgentCore
import Testing

/// Issue 24: the password of a verify approval could be guessed without limit (120 wrong guesses, the approval
/// still pending, 3.5 a second in parallel).
@Suite struct UserVerificationAttemptsTests {
    static let password = "correct horse battery"

    static func withPAM(_ body: (InProcessAgent) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pam-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pam = try PAMTestService(in: directory, password: password)
        try await InProcessAgent.with(configure: { $0.userVerificationPAMDirectory = pam.directory }, body)
    }

    /// The API's answer to approving `approval` with `password`: "ok", or the status, code and message.
    func approve(_ agent: InProcessAgent, _ approval: Approval, password: String) async -> String {
        do {
            return "ok \(try await agent.client.approve(approval.id, password: password).state.rawValue)"
        } catch ControlClientError.api(let status, let error) {
            return "\(status) \(error.code.rawValue) \(error.message)"
        } catch {
            return "\(error)"
        }
    }

    /// Three wrong passwords, each after the wait the one before set, leave a 4 s wait: wide enough that the right
    /// password sent at once is turned away even on a machine slowed by the whole suite (a 1 s wait was not).
    @Test func aWrongPasswordMakesTheNextTryWait() async throws {
        try await Self.withPAM { agent in
            let approval = try await agent.pending(.verify, of: try await agent.addAccount())
            for (attempt, wait) in [(1, 1), (2, 2), (3, 4)] {
                let wrong = await approve(agent, approval, password: "not the password \(attempt)")
                #expect(wrong.hasPrefix("403 forbidden user verification failed for root") && wrong.contains("retry in \(wait) s"), "\(wrong)")
                if attempt < 3 { try await Task.sleep(for: .seconds(Double(wait) + 0.1)) }
            }
            let atOnce = await approve(agent, approval, password: Self.password)
            #expect(atOnce.hasPrefix("429 busy too many attempts") && atOnce.contains("retry in"), "\(atOnce)")
            #expect(try await agent.client.approval(approval.id).state == .pending)
            try await Task.sleep(for: .seconds(4.1))
            let right = await approve(agent, approval, password: Self.password)
            #expect(right.hasPrefix("ok"), "\(right)")
        }
    }

    @Test func theFifthWrongPasswordDeniesTheApprovalAndIsAudited() async throws {
        try await Self.withPAM { agent in
            let approval = try await agent.pending(.verify, of: try await agent.addAccount())
            var answers: [String] = []
            for attempt in 1...5 {
                answers.append(await approve(agent, approval, password: "wrong-pw-\(attempt)"))
                if attempt < 5 { try await Task.sleep(for: .seconds(Double(1 << (attempt - 1)) + 0.1)) }
            }
            #expect(answers.prefix(4).allSatisfy { $0.hasPrefix("403 forbidden user verification failed") }, "\(answers)")
            #expect(answers[4].hasPrefix("403 forbidden") && answers[4].contains("was denied"), "\(answers[4])")
            #expect([.denying, .denied, .failed].contains(try await agent.client.approval(approval.id).state))
            let audit = try await agent.store.auditEntries(event: "verify_denied")
            #expect(audit.count == 1 && audit.first?.subject == approval.id && audit.first?.peerUid == 0)
            #expect(!answers.joined().contains("wrong-pw"), "no password in an answer")
        }
    }
}
