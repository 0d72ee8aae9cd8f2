import Foundation
import PushAgentCore
@testable import PushAgentDaemon
import Testing

/// Waiting for answers in flight is bounded: an answer retried until its approval expires must not hold up a
/// SIGTERM or an approve call past their limits.
struct InFlightAnswersTests {
    static let approval = Approval(id: "apr_x", provider: .forgerock, accountId: "acc", kind: .prompt, numbers: nil,
                                   title: "t", message: "m", context: ApprovalContext(), state: .approving,
                                   requestedAt: Date(), expiresAt: Date().addingTimeInterval(60))

    @Test func drainingStopsWaitingAtItsTimeout() async {
        let answers = InFlightAnswers()
        _ = answers.start {
            try? await Task.sleep(for: .seconds(600))
            return Self.approval
        }
        let clock = ContinuousClock()
        let waited = await clock.measure { await answers.drain(timeout: .milliseconds(200)) }
        // Far below the answer's 600 s, with room for a test machine whose threads are all busy.
        #expect(waited < .seconds(60), "drain waited \(waited)")
        #expect(answers.count == 1, "the answer still runs, to be resumed at the next start")
    }

    @Test func resultsAreAllTheOutcomesOrNothingPastTheBound() async {
        let quick = Task { Self.approval }
        #expect(await InFlightAnswers.results(of: [quick], within: .seconds(5))?.map(\.id) == ["apr_x"])
        let slow = Task {
            try? await Task.sleep(for: .seconds(600))
            return Self.approval
        }
        let clock = ContinuousClock()
        var outcome: [Approval]? = []
        let waited = await clock.measure { outcome = await InFlightAnswers.results(of: [quick, slow], within: .milliseconds(200)) }
        #expect(outcome == nil && waited < .seconds(60))
        slow.cancel()
    }
}
