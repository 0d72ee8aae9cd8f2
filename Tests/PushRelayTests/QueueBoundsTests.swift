@testable import PushRelay
import Testing

struct QueueBoundsTests {
    @Test func countsOnlyWhenTheEstimateReachesTheLimit() {
        let bounds = QueueBounds()
        var counted = 0
        func admits(actual: Int) -> Bool {
            bounds.admits(deviceID: "d", limit: 3) { counted += 1; return actual }
        }
        #expect(admits(actual: 0) && counted == 1, "the first send counts")
        for _ in 0..<3 { bounds.inserted(deviceID: "d") }
        #expect(admits(actual: 3) == false && counted == 2, "at the limit it counts again, and refuses a full queue")
        #expect(admits(actual: 1) && counted == 3, "messages acknowledged meanwhile make room")
        bounds.inserted(deviceID: "d")
        #expect(admits(actual: 99) && counted == 3, "below the limit it trusts the estimate (1 + 1 inserted)")
        bounds.forget(deviceID: "d")
        #expect(admits(actual: 0) && counted == 4)
    }
}
