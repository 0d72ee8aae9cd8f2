import Foundation
import Synchronization

/// How fast Web Push messages may come (pushrelay.toml's `webpush_*` keys): a token bucket per subscription, and per
/// origin, the application server that sends. An origin is its VAPID key when the message is signed (one Mastodon
/// instance, one Matrix push gateway, across every subscription it sends to), and the client address when the
/// subscription takes messages from anyone: there a sender may sign with a key it made up a moment ago, which
/// identifies nobody.
public struct WebPushRateLimits: Sendable, Equatable {
    /// A bucket: `burst` messages at once, then `perSecond` on average. 0 for either turns the limit off.
    public struct Rate: Sendable, Equatable {
        public var burst: Int
        public var perSecond: Double

        var isOff: Bool { burst == 0 || perSecond == 0 }
    }

    public var subscription = Rate(burst: 100, perSecond: 10)
    /// Ten subscriptions' worth: one application server sends to many users, and a device's whole queue (1000) is as
    /// much as it may put down at once.
    public var vapidKey = Rate(burst: 1000, perSecond: 100)
    /// As a VAPID key's. Behind a proxy every sender has the proxy's address, which makes this one bucket for all
    /// open subscriptions' senders together (docs/relay.md).
    public var address = Rate(burst: 1000, perSecond: 100)
}

/// The buckets of `WebPushRateLimits`, in memory: a message takes a token from each of its buckets only when every
/// one of them has one, so a message one limit refuses costs the others nothing. Each relay instance keeps its own
/// buckets; a restart refills them.
final class WebPushRateLimiter: Sendable {
    enum Key: Hashable, Sendable {
        case subscription(String)
        /// The 65-byte P-256 point of a VAPID signature that verified.
        case vapidKey(Data)
        /// The sender's IP address (`WebPushClientAddress`).
        case address(String)
    }

    /// A message refused: the limit whose token comes back last, and the whole seconds until it has.
    struct Refusal: Equatable {
        var key: Key
        var retryAfterSeconds: Int
    }

    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private let limits: WebPushRateLimits
    private let buckets = Mutex<[Key: Bucket]>([:])
    /// Past this many buckets the full ones are forgotten, so senders to many subscriptions, or from many keys and
    /// addresses, cannot grow the table without bound.
    private let largestTable: Int

    init(_ limits: WebPushRateLimits, largestTable: Int = 100_000) {
        self.limits = limits
        self.largestTable = largestTable
    }

    /// Nil when the message may go now, having taken a token from each bucket in `keys`; else why not, with nothing
    /// taken.
    func refusal(taking keys: [Key], now: ContinuousClock.Instant = .now) -> Refusal? {
        buckets.withLock { buckets in
            if buckets.count >= largestTable {
                buckets = buckets.filter { refilled($0.value, rate: rate($0.key), now: now) < Double(rate($0.key).burst) }
                // Still full: flooded across that many subscriptions and origins at once. Forgetting gives each a
                // fresh burst, which bounds memory at the cost of one burst each.
                if buckets.count >= largestTable { buckets.removeAll() }
            }
            var refusal: Refusal?
            var levels: [(key: Key, tokens: Double)] = []
            for key in keys {
                let rate = rate(key)
                guard !rate.isOff else { continue }
                let tokens = buckets[key].map { refilled($0, rate: rate, now: now) } ?? Double(rate.burst)
                if tokens < 1 {
                    let seconds = Int(((1 - tokens) / rate.perSecond).rounded(.up))
                    if seconds > refusal?.retryAfterSeconds ?? 0 { refusal = Refusal(key: key, retryAfterSeconds: seconds) }
                }
                levels.append((key, tokens))
            }
            // Refused: every bucket stays as it was (refilling is linear, so a later look computes the same level).
            guard refusal == nil else { return refusal }
            for level in levels { buckets[level.key] = Bucket(tokens: level.tokens - 1, updated: now) }
            return nil
        }
    }

    /// The buckets kept (for tests of the bound).
    var bucketCount: Int { buckets.withLock { $0.count } }

    private func rate(_ key: Key) -> WebPushRateLimits.Rate {
        switch key {
        case .subscription: limits.subscription
        case .vapidKey: limits.vapidKey
        case .address: limits.address
        }
    }

    private func refilled(_ bucket: Bucket, rate: WebPushRateLimits.Rate, now: ContinuousClock.Instant) -> Double {
        let elapsed = now - bucket.updated
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return min(Double(rate.burst), bucket.tokens + seconds * rate.perSecond)
    }
}
