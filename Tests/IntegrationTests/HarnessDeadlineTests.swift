import ClusterHarness
import Foundation
import Testing

/// A test starved of threads past its deadline (the parallel run on 2 cores while others generate RSA keys) must still
/// see what happened meanwhile: the harness's waits look once more after their deadline. A zero timeout is a wait
/// that first gets a thread after its deadline.
@Suite struct HarnessDeadlineTests {
    @Test func aLinePrintedBeforeAStarvedWaitLooksIsFound() async throws {
        let process = try ManagedProcess(name: "sh", executable: "/bin/sh", arguments: ["-c", "echo ready at 7; exec sleep 30"])
        defer { process.signal(SIGKILL) }
        try await eventually("sh printed its line") { process.text.contains("ready at 7") }
        #expect(try await process.waitForLine(startingWith: "ready at ", timeout: .zero) == "7")
    }

    @Test func aConditionThatHoldsWhenAStarvedWaitLooksIsSeen() async throws {
        try await eventually("it holds", timeout: .zero) { true }
    }

    @Test func aLongPollStarvedPastItsDeadlineLooksOnceMoreWithoutWaiting() async throws {
        var waits: [Int] = []
        let found = try await longPolling(for: .zero) { wait in
            waits.append(wait)
            return "the answer"
        }
        #expect(found == "the answer" && waits == [0])
    }

    @Test func aLineNeverPrintedStillTimesOut() async throws {
        let process = try ManagedProcess(name: "sh", executable: "/bin/sh", arguments: ["-c", "exec sleep 30"])
        defer { process.signal(SIGKILL) }
        await #expect(throws: HarnessError.self) { try await process.waitForLine(startingWith: "ready", timeout: .milliseconds(50)) }
    }
}
