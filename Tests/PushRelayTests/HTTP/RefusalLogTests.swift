import ConnectionGuards
import Foundation
import Testing

/// What the servers log of connections refused over a bound (issue 24: a uid at the control socket's bound was
/// logged 29 times in 60 s, and the relay's `max_connections` warning came back each time it filled up again).
@Suite struct RefusalLogTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func theFirstRefusalOfAKeyIsLoggedAndLaterOnesSummedUpOnceAMinute() {
        var log = RefusalLog<UInt32>()
        #expect(log.refusal(of: 1000, at: start) == .first)
        let quiet = (1..<60).compactMap { log.refusal(of: 1000, at: start.addingTimeInterval(Double($0))) }
        #expect(quiet.isEmpty, "\(quiet)")
        #expect(log.refusal(of: 1001, at: start) == .first, "each key on its own")
        #expect(log.refusal(of: 1000, at: start.addingTimeInterval(60)) == .summary(count: 60, seconds: 60))
        #expect(log.refusal(of: 1000, at: start.addingTimeInterval(61)) == nil, "counting starts over")
        #expect(log.refusal(of: 1000, at: start.addingTimeInterval(125)) == .summary(count: 2, seconds: 65))
    }
}
