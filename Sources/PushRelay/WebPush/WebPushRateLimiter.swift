import Synchronization

/// A token bucket per subscription, in memory: a sender may burst up to `burst` messages, then `perSecond` on
/// average. Per subscription rather than per sender: a Web Push sender has no identity but its VAPID key, which an
/// unrestricted subscription does not require, and a client address behind NAT or a proxy names many senders.
/// Each relay instance keeps its own buckets; a restart refills them.
final class WebPushRateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private let burst: Double
    private let perSecond: Double
    private let buckets = Mutex<[String: Bucket]>([:])
    /// Past this many buckets the full ones are forgotten, so senders to many subscriptions cannot grow the table
    /// without bound.
    private let largestTable = 100_000

    init(burst: Int, perSecond: Double) {
        self.burst = Double(burst)
        self.perSecond = perSecond
    }

    /// Nil when a message may go now (and takes its token); else the whole seconds until one may.
    func retryAfter(subscriptionID: String, now: ContinuousClock.Instant = .now) -> Int? {
        buckets.withLock { buckets in
            if buckets.count >= largestTable {
                buckets = buckets.filter { refilled($0.value, now: now) < burst }
                // Still full: flooded across that many subscriptions at once. Forgetting gives each a fresh burst,
                // which bounds memory at the cost of one burst per subscription.
                if buckets.count >= largestTable { buckets.removeAll() }
            }
            var bucket = buckets[subscriptionID].map { Bucket(tokens: refilled($0, now: now), updated: now) }
                ?? Bucket(tokens: burst, updated: now)
            defer { buckets[subscriptionID] = bucket }
            guard bucket.tokens >= 1 else { return Int(((1 - bucket.tokens) / perSecond).rounded(.up)) }
            bucket.tokens -= 1
            return nil
        }
    }

    private func refilled(_ bucket: Bucket, now: ContinuousClock.Instant) -> Double {
        let elapsed = now - bucket.updated
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return min(burst, bucket.tokens + seconds * perSecond)
    }
}

