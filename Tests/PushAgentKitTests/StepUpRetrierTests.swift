import CurlHTTP
import Foundation
import PushAgentKit
import Testing

/// The retrier over the real HTTP client against a real server that challenges (`ChallengeServer`).
@Suite(.timeLimit(.minutes(1)))
struct StepUpRetrierTests {
    static func client(_ flow: any StepUpFlow, triggers: [any StepUpTrigger] = [GitHubOTPTrigger()])
        -> (StepUpHTTPClient, StepUpRetrier) {
        let retrier = StepUpRetrier(triggers: triggers, flow: flow)
        return (StepUpHTTPClient(retrier: retrier), retrier)
    }

    /// `count` concurrent requests to `/otp`, once all of them wait on a step-up the test answers by hand.
    static func parked(_ count: Int, at server: ChallengeServer)
        async throws -> (ManualFlow, StepUpRetrier, [Task<HTTPResponse, any Error>]) {
        let flow = ManualFlow()
        let (client, retrier) = Self.client(flow)
        let tasks = (0..<count).map { _ in Task { try await client.send(HTTPRequest(url: server.baseURL + "/otp")) } }
        try await eventually("\(count) requests wait for the step-up") { retrier.waitingRequests == count && flow.started > 0 }
        return (flow, retrier, tasks)
    }

    @Test func tenConcurrentRequestsShareOneFlowAndAllSucceedAfterOneApproval() async throws {
        try await ChallengeServer.with { server in
            let (flow, retrier, tasks) = try await Self.parked(10, at: server)
            flow.answer(.success(StepUpToken(ChallengeServer.code)))
            for task in tasks {
                let response = try await task.value
                #expect(response.status == 200)
                #expect(response.text == "protected")
            }
            #expect(flow.started == 1, "one flow for all ten")
            #expect(await server.log.challenged == 10)
            #expect(await server.log.accepted == 10, "each request retried once, with the token")
            #expect(retrier.waitingRequests == 0)
            #expect(flow.challenges.first?.reason == "one-time password required (delivered by app)")
        }
    }

    @Test func aDeniedFlowFailsAllTenWithItsCause() async throws {
        try await ChallengeServer.with { server in
            let (flow, _, tasks) = try await Self.parked(10, at: server)
            flow.answer(.failure(Denied(by: "alice")))
            for task in tasks {
                let error = await #expect(throws: StepUpError.self) { try await task.value }
                guard case .flowFailed(let challenge, let cause)? = error else {
                    Issue.record("expected flowFailed, got \(String(describing: error))")
                    continue
                }
                #expect(cause as? Denied == Denied(by: "alice"), "the flow's cause reaches every waiter")
                #expect(challenge.trigger == "github-otp")
            }
            #expect(flow.started == 1)
            #expect(await server.log.accepted == 0)
            #expect(await server.log.challenged == 10, "nothing is retried after a failed flow")
        }
    }

    @Test func aCancelledCallerLeavesTheOthersAndTheFlowAlone() async throws {
        try await ChallengeServer.with { server in
            let (flow, retrier, tasks) = try await Self.parked(3, at: server)
            tasks[0].cancel()
            try await eventually("the cancelled caller left") { retrier.waitingRequests == 2 }
            await #expect(throws: CancellationError.self) { try await tasks[0].value }
            #expect(flow.cancelled == 0, "the flow goes on for the others")
            flow.answer(.success(StepUpToken(ChallengeServer.code)))
            #expect(try await tasks[1].value.status == 200)
            #expect(try await tasks[2].value.status == 200)
            #expect(flow.started == 1)
            #expect(await server.log.accepted == 2)
        }
    }

    @Test func theFlowIsCancelledWhenNobodyWaitsAnyMore() async throws {
        try await ChallengeServer.with { server in
            let (flow, retrier, tasks) = try await Self.parked(2, at: server)
            for task in tasks { task.cancel() }
            try await eventually("the orphaned flow is cancelled") { flow.cancelled == 1 }
            #expect(retrier.waitingRequests == 0)
        }
    }

    @Test func aServerThatChallengesAgainIsNotLooped() async throws {
        try await ChallengeServer.with { server in
            let flow = ImmediateFlow { StepUpToken(ChallengeServer.code) }
            let (client, _) = Self.client(flow)
            let error = await #expect(throws: StepUpError.self) {
                try await client.send(HTTPRequest(url: server.baseURL + "/always"))
            }
            guard case .challengedAgain(let first, let again)? = error else {
                Issue.record("expected challengedAgain, got \(String(describing: error))")
                return
            }
            #expect(first.origin == server.baseURL && again.trigger == "github-otp")
            #expect(error?.description.contains("challenged again after the retry") == true, "\(String(describing: error))")
            #expect(await server.log.challenged == 2, "the first attempt and one retry, no more")
        }
    }

    @Test func aUserCancelFailsEveryWaiterQuietly() async throws {
        try await ChallengeServer.with { server in
            let (flow, _, tasks) = try await Self.parked(3, at: server)
            flow.answer(.failure(StepUpCancelled()))
            for task in tasks {
                let error = await #expect(throws: StepUpError.self) { try await task.value }
                guard case .cancelled? = error else {
                    Issue.record("expected cancelled, got \(String(describing: error))")
                    continue
                }
            }
        }
    }

    @Test func anUnchallengedResponseGoesStraightBack() async throws {
        try await ChallengeServer.with { server in
            let flow = ManualFlow()
            let (client, _) = Self.client(flow)
            let response = try await client.send(HTTPRequest(
                url: server.baseURL + "/otp", headers: [(name: "X-GitHub-OTP", value: ChallengeServer.code)]))
            #expect(response.status == 200)
            #expect(flow.started == 0)
        }
    }

    @Test func rfc9470TokenGoesIntoAuthorizationWithTheChallengesScheme() async throws {
        try await ChallengeServer.with { server in
            let flow = ManualFlow()
            let (client, retrier) = Self.client(flow, triggers: [GitHubOTPTrigger(), BearerStepUpTrigger()])
            let request = HTTPRequest(url: server.baseURL + "/bearer", headers: [(name: "Authorization", value: "Bearer old-token")])
            let task = Task { try await client.send(request) }
            try await eventually("the request waits") { retrier.waitingRequests == 1 && flow.started == 1 }
            let challenge = try #require(flow.challenges.first)
            #expect(challenge.trigger == "rfc9470")
            #expect(challenge.acrValues == ["mfa", "hwk"])
            #expect(challenge.maxAge == 5)
            #expect(challenge.reason == "More recent authentication is required")
            #expect(challenge.credential == .receipt)
            flow.answer(.success(StepUpToken(ChallengeServer.code)))
            let response = try await task.value
            #expect(response.status == 200, "the old Authorization is replaced, not doubled")
            #expect(response.text == "stepped up")
        }
    }
}
