import Foundation
import Testing
@testable import PushAgentCore

/// Issue 12: times from the wire are bounded, so no push can trap a conversion or store a time nobody can read back.
@Suite struct WireTimeTests {
    @Test func onlyRepresentableEpochSecondsAreTimes() {
        #expect(WireTime.date(epochSeconds: 1_702_243_057) == Date(timeIntervalSince1970: 1_702_243_057))
        #expect(WireTime.date(epochSeconds: 253_402_300_799) != nil, "9999-12-31T23:59:59Z is the last one")
        for nonsense in [1e300, -1e300, -1, 253_402_300_800, .infinity, -.infinity, .nan] {
            #expect(WireTime.date(epochSeconds: nonsense) == nil, "\(nonsense)")
        }
        #expect(WireTime.date(epochMillis: .max) == nil && WireTime.date(epochMillis: .min) == nil)
        #expect(WireTime.date(epochMillis: 1_589_138_690_000) == Date(timeIntervalSince1970: 1_589_138_690))
    }

    @Test func wholeSecondsSaturatesInsteadOfTrapping() {
        let now = Date(timeIntervalSince1970: 0)
        #expect(WireTime.wholeSeconds(from: now, to: Date(timeIntervalSince1970: 90.9)) == 90)
        #expect(WireTime.wholeSeconds(from: now, to: Date(timeIntervalSince1970: 1e300)) == .max)
        #expect(WireTime.wholeSeconds(from: now, to: Date(timeIntervalSince1970: -1e300)) == .min)
    }

    @Test func draftsAreBoundedToADayAroundTheirArrival() {
        let arrival = Date(timeIntervalSince1970: 1_700_000_000)
        let day = ApprovalDraft.maximumLifetime
        func draft(requested: Date, expires: Date) -> ApprovalDraft {
            ApprovalDraft(provider: .forgerock, accountId: "acc_1", kind: .prompt, numbers: nil, title: "t", message: "m",
                          context: ApprovalContext(), requestedAt: requested, expiresAt: expires, dedupeKey: "k",
                          answerContext: Data())
        }
        let farFuture = draft(requested: Date(timeIntervalSince1970: 9e15), expires: Date(timeIntervalSince1970: 9e15))
        #expect(!farFuture.isStorable)
        let bounded = farFuture.bounded(receivedAt: arrival)
        #expect(bounded.expiresAt == arrival.addingTimeInterval(day) && bounded.requestedAt == arrival)
        #expect(bounded.isStorable)

        let ancient = draft(requested: Date(timeIntervalSince1970: -1e12), expires: arrival.addingTimeInterval(60))
            .bounded(receivedAt: arrival)
        #expect(ancient.requestedAt == arrival.addingTimeInterval(-day) && ancient.expiresAt == arrival.addingTimeInterval(60))
    }
}
