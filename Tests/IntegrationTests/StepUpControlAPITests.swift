import ClusterHarness
import ControlClient
import ControlWire
import Foundation
import PushAgentCore
import Testing

/// The step-up control API's rules, against the real daemon: who may ask, approve and collect; bad requests.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct StepUpControlAPITests {
    static let nobody: UInt32 = 65534

    @Test(.enabled(if: getuid() == 0, "runs stepup-example as another user, which needs root"))
    func anyUserMayAskOnlyOperatorsApproveOnlyTheAskerCollects() async throws {
        try await StepUpCluster.run { stepUp in
            let cluster = stepUp.cluster
            chmod(cluster.directory, 0o755)
            chmod(cluster.socketPath, 0o666)
            let (server, url) = try await stepUp.startServer(trigger: "github-otp")
            let arguments = stepUp.exampleArguments(url, trigger: "github-otp")
            // The program ends only after the approval below.
            let example = Task {
                try await CommandResult.run(Binaries.path("stepup-example"), arguments, asUID: Self.nobody)
            }
            let approval = try #require(try await stepUp.pendingStepUps().first)
            #expect(approval.message.contains("uid \(Self.nobody))"), "the kernel's uid, not a claim: \(approval.message)")
            #expect(approval.context.user?.contains("uid \(Self.nobody)") == true)

            let approveAsNobody = try await cluster.pushctl(["approve", approval.id], asUID: Self.nobody)
            #expect(approveAsNobody.status == 1, "asking is not approving")
            #expect(approveAsNobody.stderr.contains("may read but not approve"))
            let collect = await Self.failure { _ = try await cluster.client.stepUp(approval.id) }
            #expect(collect?.status == 403, "root did not ask, so it may not collect")
            #expect(collect?.message.contains("only that uid may collect") == true, "\(String(describing: collect))")
            let withdraw = await Self.failure { _ = try await cluster.client.withdrawStepUp(approval.id) }
            #expect(withdraw?.status == 403 && withdraw?.message.contains("only that uid may withdraw") == true,
                    "\(String(describing: withdraw))")

            #expect(try await cluster.pushctl(["approve", approval.id]).status == 0)
            let result = try await example.value
            #expect(result.status == 0, "stepup-example as nobody: \(result.stdout) \(result.stderr)")
            #expect(result.stdout.contains("HTTP 200"))
            await server.stop()
        }
    }

    @Test func aPendingStepUpIsWithdrawnOnceAndAnAnsweredOneStands() async throws {
        try await StepUpCluster.run { stepUp in
            let client = stepUp.cluster.client
            let asked = try await client.requestStepUp(StepUpRequest(answer: .receipt, reason: "deploy"))
            let withdrawn = try await client.withdrawStepUp(asked.approval.id)
            #expect(withdrawn.approval.state == .failed)
            #expect(withdrawn.approval.error?.contains("nobody waits for the answer any more") == true,
                    "\(withdrawn.approval.error ?? "")")
            #expect(try await client.approvals(state: .pending).isEmpty, "it left the user's list")
            let again = await Self.failure { _ = try await client.withdrawStepUp(asked.approval.id) }
            #expect(again?.status == 409 && again?.message.contains("already failed") == true, "\(String(describing: again))")

            let answered = try await client.requestStepUp(StepUpRequest(answer: .receipt, reason: "deploy"))
            #expect(try await stepUp.cluster.pushctl(["approve", answered.approval.id]).status == 0)
            let late = await Self.failure { _ = try await client.withdrawStepUp(answered.approval.id) }
            #expect(late?.status == 409 && late?.message.contains("already approved") == true, "\(String(describing: late))")
            #expect(try await client.stepUp(answered.approval.id).receipt != nil, "the approval stands")

            let account = await Self.failure { _ = try await client.withdrawStepUp(stepUp.account.id) }
            #expect(account?.status == 404, "\(String(describing: account))")
        }
    }

    @Test func badStepUpRequestsAreRefusedWithTheReason() async throws {
        try await StepUpCluster.run { stepUp in
            let client = stepUp.cluster.client
            func refusal(_ request: StepUpRequest) async -> (status: Int, message: String)? {
                await Self.failure { _ = try await client.requestStepUp(request) }
            }
            let noAccount = await refusal(StepUpRequest(answer: .totp))
            #expect(noAccount?.status == 400 && noAccount?.message.contains("needs \"account\"") == true, "\(String(describing: noAccount))")
            let unknown = await refusal(StepUpRequest(answer: .totp, account: "acc_nope"))
            #expect(unknown?.status == 404, "\(String(describing: unknown))")
            let escape = await refusal(StepUpRequest(answer: .receipt, reason: "approve \u{1B}[2Kthis"))
            #expect(escape?.status == 400 && escape?.message.contains("control character U+001B") == true, "\(String(describing: escape))")
            let bidi = await refusal(StepUpRequest(answer: .receipt, businessNumber: "BN\u{202E}1"))
            #expect(bidi?.status == 400, "bidirectional overrides could reverse what the user reads")
            let ttl = await refusal(StepUpRequest(answer: .receipt, ttlSeconds: 5))
            #expect(ttl?.status == 400 && ttl?.message.contains("ttl_seconds") == true)
            let accountForReceipt = await refusal(StepUpRequest(answer: .receipt, account: stepUp.account.id))
            #expect(accountForReceipt?.status == 400)
            #expect(try await client.approvals(state: nil).isEmpty, "nothing refused was recorded")

            for number in 1...5 { _ = try await client.requestStepUp(StepUpRequest(answer: .receipt, businessNumber: "BN-\(number)")) }
            let flood = await refusal(StepUpRequest(answer: .receipt))
            #expect(flood?.status == 409 && flood?.message.contains("already has 5 step-ups waiting") == true, "\(String(describing: flood))")

            let asked = try #require(try await client.approvals(state: .pending).first)
            #expect(await Self.failure { _ = try await client.stepUp(asked.id, wait: 61) }?.status == 400)
            let waited = try await client.stepUp(asked.id, wait: 1)
            #expect(waited.approval.state == .pending && waited.receipt == nil, "no answer before approval")
            #expect(try await stepUp.cluster.pushctl(["deny", asked.id]).status == 0)
            let denied = try await client.stepUp(asked.id)
            #expect(denied.approval.state == .denied && denied.receipt == nil && denied.code == nil)
        }
    }

    /// The API error a call ends in (status 0: not an API error), nil when it succeeds.
    static func failure(_ call: () async throws -> Void) async -> (status: Int, message: String)? {
        do {
            try await call()
            return nil
        } catch ControlClientError.api(let status, let error) {
            return (status, error.message)
        } catch {
            return (0, "\(error)")
        }
    }

    @Test func theSigningKeyIsMadeOnceKeptAcrossRestartsAndSecret() async throws {
        try await StepUpCluster.run { stepUp in
            let first = try await stepUp.cluster.client.signingKeys()
            await stepUp.cluster.daemon?.stop()
            try await stepUp.cluster.startDaemon()
            let again = try await stepUp.cluster.client.signingKeys()
            #expect(first == again && first.keys.count == 1)
            let database = stepUp.cluster.stateDirectory + "/agent.sqlite"
            let mode = try FileManager.default.attributesOfItem(atPath: database)[.posixPermissions] as? Int
            #expect(mode == 0o600, "the key lives in the 0600 database")
            let json = try await stepUp.cluster.pushctl(["--json", "jwks"]).stdout
            #expect(json.contains(#""kid" : "\#(first.keys[0].kid)""#) && !json.contains("\"d\""), "public half only")
        }
    }
}
