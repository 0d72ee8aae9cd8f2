import Foundation
import Logging
import NIOEmbedded
@testable import PushAgentDaemon
import Synchronization
import Testing

/// docs/control-api.md, "Per-uid bound": the first refusal of a uid is logged, not every one.
@Suite struct PeerConnectionLimiterTests {
    /// Issue 24: a uid hovering at its bound (one connection closes, the next is refused again) was logged 29 times
    /// in 60 s.
    @Test func aUidRefusedAgainAndAgainIsLoggedOnce() async throws {
        let log = RecordedLog()
        let limiter = PeerConnectionLimiter(perUID: 1, logger: log.logger)
        for _ in 0..<5 {
            let held = EmbeddedChannel()
            #expect(limiter.admit(held, uid: 1000))
            #expect(!limiter.admit(EmbeddedChannel(), uid: 1000))
            try await held.close()
            held.embeddedEventLoop.run()
        }
        #expect(limiter.admit(EmbeddedChannel(), uid: 1001), "another uid is unaffected")
        let warnings = log.entries.filter { $0.level == .warning }
        #expect(warnings.count == 1, "\(warnings)")
        #expect(warnings.first?.message.contains("uid 1000") == true)
    }
}

extension PeerConnectionLimiterTests {
    /// A uid that stays at its bound gets one line a minute, with the count of the refusals since the last.
    @Test func laterRefusalsAreSummedUpAtMostOnceAMinute() async throws {
        let log = RecordedLog()
        let limiter = PeerConnectionLimiter(perUID: 1, logger: log.logger)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(limiter.admit(EmbeddedChannel(), uid: 1000, now: start))
        for second in 0..<30 { #expect(!limiter.admit(EmbeddedChannel(), uid: 1000, now: start.addingTimeInterval(Double(second)))) }
        #expect(log.entries.count == 1)
        #expect(!limiter.admit(EmbeddedChannel(), uid: 1000, now: start.addingTimeInterval(60)))
        #expect(log.entries.count == 2)
        #expect(log.entries.last?.message.contains("uid 1000: 30 more control connection(s) refused in the last 60 s") == true,
                "\(log.entries.map(\.message))")
    }
}

/// What a logger was given, for tests that check what is logged and how often.
final class RecordedLog: Sendable {
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
    }

    private let recorded = Mutex<[Entry]>([])

    var entries: [Entry] { recorded.withLock { $0 } }

    var logger: Logger { Logger(label: "recorded") { _ in Handler(destination: self) } }

    fileprivate func append(_ entry: Entry) { recorded.withLock { $0.append(entry) } }

    private struct Handler: LogHandler {
        let destination: RecordedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            destination.append(Entry(level: event.level, message: "\(event.message)"))
        }
    }
}
