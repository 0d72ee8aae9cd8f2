import Foundation
@testable import PushAgentDaemon
import Testing

/// The waits between wrong passwords of verify approvals, on a clock the test sets.
@Suite struct VerificationAttemptsTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func eachFailureDoublesTheWaitUpToAMinute() {
        #expect((1...8).map(VerificationAttempts.wait(afterFailures:)) == [1, 2, 4, 8, 16, 32, 60, 60])
    }

    @Test func theWaitHoldsForTheUidOnOtherApprovalsToo() {
        let attempts = VerificationAttempts()
        #expect(attempts.secondsToWait(uid: 1000, approvalId: "apr_a", now: start) == nil)
        let first = attempts.recordFailure(uid: 1000, approvalId: "apr_a", now: start)
        #expect(first.count == 1 && first.wait == 1)
        #expect(attempts.secondsToWait(uid: 1000, approvalId: "apr_b", now: start) == 1, "the uid waits on every approval")
        #expect(attempts.secondsToWait(uid: 1001, approvalId: "apr_a", now: start) == 1, "every uid waits on the approval")
        #expect(attempts.secondsToWait(uid: 1001, approvalId: "apr_b", now: start) == nil, "others are unaffected")
        #expect(attempts.secondsToWait(uid: 1000, approvalId: "apr_a", now: start.addingTimeInterval(1)) == nil)
        let second = attempts.recordFailure(uid: 1000, approvalId: "apr_b", now: start.addingTimeInterval(1))
        #expect(second.count == 1 && second.wait == 2, "apr_b's first failure, the uid's second")
    }

    @Test func theRightPasswordOrAQuarterHourStartsOver() {
        let attempts = VerificationAttempts()
        for second in 0..<3 { _ = attempts.recordFailure(uid: 1000, approvalId: "apr_a", now: start.addingTimeInterval(Double(second) * 10)) }
        attempts.forget(uid: 1000, approvalId: "apr_a")
        #expect(attempts.recordFailure(uid: 1000, approvalId: "apr_a", now: start.addingTimeInterval(30)).wait == 1)
        let later = start.addingTimeInterval(30 + 1 + VerificationAttempts.forgetAfter)
        #expect(attempts.recordFailure(uid: 1000, approvalId: "apr_b", now: later).wait == 1)
    }
}
