import ClusterHarness
import ControlWire
import Foundation
import PushAgentCore
import Testing

/// Step-up end to end with real processes: stepup-example (PushAgentKit) → stepup-server challenges → pushagentd
/// shows the step-up → pushctl approves → the example's requests complete with what the server expects.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct StepUpEndToEndTests {
    @Test func threeRequestsOneStepUpAndTheTOTPCodeTheServerExpects() async throws {
        try await StepUpCluster.run { stepUp in
            let (server, url) = try await stepUp.startServer(trigger: "github-otp")
            let example = try stepUp.startExample(url, trigger: "github-otp", requests: 3)
            let approval = try #require(try await stepUp.pendingStepUps().first)
            #expect(approval.provider == .local)
            #expect(approval.accountId == stepUp.account.id)

            let list = try await stepUp.cluster.pushctl(["list"])
            #expect(list.status == 0)
            #expect(list.stdout.contains(approval.id) && list.stdout.contains("stepup"))
            #expect(list.stdout.contains("stepup-example (pid \(example.pid), uid \(getuid()))"), "the caller, from SO_PEERCRED: \(list.stdout)")
            let show = try await stepUp.cluster.pushctl(["show", approval.id])
            #expect(show.stdout.contains("app: stepup-example"), "\(show.stdout)")
            #expect(show.stdout.contains("a request to \(url.replacingOccurrences(of: "/protected", with: ""))"))
            #expect(show.stdout.contains("one-time password required (delivered by app)"))

            try await eventually("all three requests were challenged") { server.text.occurrences(of: "challenged GET /protected") == 3 }
            #expect(try await stepUp.cluster.client.approvals(state: nil).filter { $0.kind == .stepup }.count == 1,
                    "three challenged requests, one step-up")
            let approve = try await stepUp.cluster.pushctl(["approve", String(approval.id.prefix(10))])
            #expect(approve.status == 0, "approve: \(approve.stderr)")

            let exit = try await example.waitForExit(timeout: .seconds(30))
            #expect(exit.status == 0, "stepup-example: \(example.text)")
            #expect(example.text.occurrences(of: "HTTP 200 hello from the protected resource") == 3)
            #expect(server.text.occurrences(of: "accepted the TOTP code for GET /protected") == 3)
            #expect(try await stepUp.cluster.client.approval(approval.id).state == .approved)
            await server.stop()
        }
    }

    @Test func aReceiptSignedByTheDeviceKeyPassesRFC9470() async throws {
        try await StepUpCluster.run { stepUp in
            let (server, url) = try await stepUp.startServer(trigger: "rfc9470")
            let watch = try ManagedProcess(name: "pushctl watch", executable: Binaries.path("pushctl"),
                                           arguments: ["--socket", stepUp.cluster.socketPath, "watch"])
            try await eventually("watch is subscribed") { watch.text.contains("relay.state") }
            let example = try stepUp.startExample(url, trigger: "rfc9470")
            let approval = try #require(try await stepUp.pendingStepUps().first)
            try await eventually("the event stream shows the step-up with its caller") {
                watch.text.contains("approval.created \(approval.id) pending: stepup-example (pid \(example.pid)")
            }
            #expect(approval.accountId.isEmpty, "a receipt names no account")
            #expect(approval.message.contains("A step-up approval is required"))
            #expect(try await stepUp.cluster.pushctl(["approve", approval.id]).status == 0)
            let exit = try await example.waitForExit(timeout: .seconds(30))
            #expect(exit.status == 0, "stepup-example: \(example.text)")
            try await eventually("the server verified the receipt") { server.text.contains("receipt \(approval.id) verified") }
            #expect(server.text.contains("accepted the step-up receipt"))
            try await eventually("the event stream shows the approval") { watch.text.contains("\(approval.id) approved") }
            await watch.stop()
            await server.stop()
        }
    }

    @Test func aDenyFailsTheRequestWithTheCause() async throws {
        try await StepUpCluster.run { stepUp in
            let (server, url) = try await stepUp.startServer(trigger: "npm-otp")
            let example = try stepUp.startExample(url, trigger: "npm-otp", requests: 2)
            let approval = try #require(try await stepUp.pendingStepUps().first)
            #expect(try await stepUp.cluster.pushctl(["deny", approval.id]).status == 0)
            let exit = try await example.waitForExit(timeout: .seconds(30))
            #expect(exit.status == 1)
            #expect(example.text.occurrences(of: "step-up \(approval.id) was denied") == 2, "both requests name the cause: \(example.text)")
            #expect(!server.text.contains("accepted"))
            await server.stop()
        }
    }
}
