import Testing
@testable import PushRelay

/// The token bucket's arithmetic on a clock the test moves, so no timing of the machine enters it.
struct WebPushRateLimiterTests {
    @Test func aBurstThenOneTokenPerIntervalWithTheWaitToldInWholeSeconds() {
        let limiter = WebPushRateLimiter(burst: 2, perSecond: 0.5)
        let start = ContinuousClock.now
        #expect(limiter.retryAfter(subscriptionID: "a", now: start) == nil)
        #expect(limiter.retryAfter(subscriptionID: "a", now: start) == nil)
        #expect(limiter.retryAfter(subscriptionID: "a", now: start) == 2)
        #expect(limiter.retryAfter(subscriptionID: "a", now: start + .seconds(1)) == 1, "half a token back after 1 s")
        #expect(limiter.retryAfter(subscriptionID: "a", now: start + .seconds(2)) == nil, "a whole token after 2 s")
        #expect(limiter.retryAfter(subscriptionID: "b", now: start + .seconds(2)) == nil, "each subscription its own bucket")
    }

    @Test func aBucketRefillsNoFurtherThanItsBurst() {
        let limiter = WebPushRateLimiter(burst: 2, perSecond: 0.5)
        let start = ContinuousClock.now
        _ = limiter.retryAfter(subscriptionID: "a", now: start)
        let later = start + .seconds(3600)
        #expect(limiter.retryAfter(subscriptionID: "a", now: later) == nil)
        #expect(limiter.retryAfter(subscriptionID: "a", now: later) == nil)
        #expect(limiter.retryAfter(subscriptionID: "a", now: later) == 2)
    }
}
