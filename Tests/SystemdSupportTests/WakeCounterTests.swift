import SystemdSupport
import Testing

/// The count connections wait on for a wake from suspend.
struct WakeCounterTests {
    @Test func aWaitEndsAtTheNextWakeOrAtOnceIfOneCameAlready() async {
        let wakes = WakeCounter()
        let seen = wakes.count
        async let waited: Void = wakes.wait(past: seen)
        try? await Task.sleep(for: .milliseconds(50))
        wakes.increment()
        await waited
        await wakes.wait(past: seen)  // it came already: no wait
        #expect(wakes.count == seen + 1)
    }

    @Test func anOperationIsCutShortByAWakeAndOnlyByAWake() async throws {
        let wakes = WakeCounter()
        #expect(try await wakes.unlessWoken(past: wakes.count) { 42 } == 42)
        let seen = wakes.count
        async let cut = wakes.unlessWoken(past: seen) { try await Task.sleep(for: .seconds(60)); return 1 }
        try await Task.sleep(for: .milliseconds(50))
        wakes.increment()
        #expect(try await cut == nil)
    }

    @Test func cancellingTheWaiterIsNotAWake() async {
        let wakes = WakeCounter()
        let task = Task { try await wakes.unlessWoken(past: wakes.count) { try await Task.sleep(for: .seconds(60)); return 1 } }
        try? await Task.sleep(for: .milliseconds(50))
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(wakes.count == 0)
    }

    /// A long-poll's transfer, aborted, ends in an error of its own, not a CancellationError: a wake still gives nil
    /// (poll again at once), and cancelling the waiter still ends it as cancelled (the source stops, no backoff).
    @Test func howTheOperationEndsWhenCutShortDoesNotMatter() async throws {
        struct Aborted: Error {}
        @Sendable func transfer() async throws -> Int {
            do { try await Task.sleep(for: .seconds(60)) } catch { throw Aborted() }
            return 1
        }
        let wakes = WakeCounter()
        let seen = wakes.count
        async let cut = wakes.unlessWoken(past: seen, transfer)
        try await Task.sleep(for: .milliseconds(50))
        wakes.increment()
        #expect(try await cut == nil)

        let task = Task { try await wakes.unlessWoken(past: wakes.count, transfer) }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }

        struct Refused: Error {}
        await #expect(throws: Refused.self) { try await wakes.unlessWoken(past: wakes.count) { () async throws -> Int in throw Refused() } }
    }
}
