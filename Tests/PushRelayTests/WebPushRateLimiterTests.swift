import Foundation
import NIOCore
import Testing
@testable import PushRelay

/// The token buckets' arithmetic on a clock the test moves, so no timing of the machine enters it.
struct WebPushRateLimiterTests {
    private let start = ContinuousClock.now
    private let key = WebPushRateLimiter.Key.vapidKey(Data([4] + Array(repeating: 1, count: 64)))

    private func take(_ limiter: WebPushRateLimiter, _ keys: WebPushRateLimiter.Key..., after seconds: Int = 0) -> Int? {
        limiter.refusal(taking: keys, now: start + .seconds(seconds))?.retryAfterSeconds
    }

    @Test func aBurstThenOneTokenPerIntervalWithTheWaitToldInWholeSeconds() {
        let limiter = WebPushRateLimiter(WebPushRateLimits(subscription: .init(burst: 2, perSecond: 0.5)))
        #expect(take(limiter, .subscription("a")) == nil)
        #expect(take(limiter, .subscription("a")) == nil)
        #expect(take(limiter, .subscription("a")) == 2)
        #expect(take(limiter, .subscription("a"), after: 1) == 1, "half a token back after 1 s")
        #expect(take(limiter, .subscription("a"), after: 2) == nil, "a whole token after 2 s")
        #expect(take(limiter, .subscription("b"), after: 2) == nil, "each subscription its own bucket")
    }

    @Test func aBucketRefillsNoFurtherThanItsBurst() {
        let limiter = WebPushRateLimiter(WebPushRateLimits(subscription: .init(burst: 2, perSecond: 0.5)))
        _ = take(limiter, .subscription("a"))
        #expect(take(limiter, .subscription("a"), after: 3600) == nil)
        #expect(take(limiter, .subscription("a"), after: 3600) == nil)
        #expect(take(limiter, .subscription("a"), after: 3600) == 2)
    }

    @Test func anOriginsBucketSpansTheSubscriptionsItSendsTo() {
        let limiter = WebPushRateLimiter(WebPushRateLimits(subscription: .init(burst: 2, perSecond: 0.5), vapidKey: .init(burst: 3, perSecond: 0.1)))
        #expect(take(limiter, .subscription("a"), key) == nil)
        #expect(take(limiter, .subscription("b"), key) == nil)
        #expect(take(limiter, .subscription("c"), key) == nil)
        #expect(take(limiter, .subscription("d"), key) == 10, "the key's fourth message, each subscription's first")
        #expect(take(limiter, .subscription("d"), .vapidKey(Data([4])), after: 0) == nil, "another key has its own bucket")
    }

    @Test func aMessageOneLimitRefusesTakesNothingFromTheOther() {
        let limiter = WebPushRateLimiter(WebPushRateLimits(subscription: .init(burst: 2, perSecond: 0.5), vapidKey: .init(burst: 3, perSecond: 0.1)))
        #expect(take(limiter, .subscription("a"), key) == nil)
        #expect(take(limiter, .subscription("a"), key) == nil)
        #expect(take(limiter, .subscription("a"), key) == 2, "the subscription's limit")
        #expect(take(limiter, .subscription("a"), key) == 2)
        #expect(take(limiter, .subscription("b"), key) == nil, "the refused messages left the key its third token")
        #expect(take(limiter, .subscription("c"), key) == 10, "the key's limit")
        #expect(take(limiter, .subscription("c")) == nil)
        #expect(take(limiter, .subscription("c")) == nil, "the message the key refused left the subscription both its tokens")
        #expect(take(limiter, .subscription("c")) == 2)
    }

    @Test func theRefusalNamesTheLimitWhoseTokenComesBackLast() throws {
        let limiter = WebPushRateLimiter(WebPushRateLimits(subscription: .init(burst: 1, perSecond: 1), address: .init(burst: 1, perSecond: 0.25)))
        #expect(take(limiter, .subscription("a"), .address("192.0.2.1")) == nil)
        let refusal = try #require(limiter.refusal(taking: [.subscription("a"), .address("192.0.2.1")], now: start))
        #expect(refusal == .init(key: .address("192.0.2.1"), retryAfterSeconds: 4))
        #expect(take(limiter, .subscription("a"), .address("192.0.2.1"), after: 1) == 3, "the subscription has its token back, the address not")
        #expect(take(limiter, .subscription("a"), .address("192.0.2.1"), after: 4) == nil)
    }

    @Test(arguments: [WebPushRateLimits.Rate(burst: 0, perSecond: 10), .init(burst: 10, perSecond: 0), .init(burst: 0, perSecond: 0)])
    func aLimitWithAZeroIsOff(off: WebPushRateLimits.Rate) {
        let limiter = WebPushRateLimiter(WebPushRateLimits(subscription: off, vapidKey: off, address: off))
        for _ in 1...10_000 { #expect(take(limiter, .subscription("a"), key, .address("192.0.2.1")) == nil) }
        #expect(limiter.bucketCount == 0, "nothing kept for a limit that is off")
    }

    @Test func fullBucketsAreForgottenOnceTheTableIsFull() {
        let limiter = WebPushRateLimiter(WebPushRateLimits(subscription: .init(burst: 1, perSecond: 1)), largestTable: 3)
        for name in ["a", "b", "c"] { #expect(take(limiter, .subscription(name)) == nil) }
        #expect(take(limiter, .subscription("d"), after: 1) == nil)
        #expect(limiter.bucketCount == 1, "a, b and c were full again: only d's bucket is kept")
    }

    @Test func aFloodAcrossTheWholeTableForgetsEveryBucket() {
        let limiter = WebPushRateLimiter(WebPushRateLimits(subscription: .init(burst: 1, perSecond: 0.001)), largestTable: 3)
        #expect(take(limiter, .subscription("a")) == nil)
        #expect(take(limiter, .subscription("a")) == 1000)
        for name in ["b", "c", "d"] { #expect(take(limiter, .subscription(name)) == nil) }
        #expect(limiter.bucketCount == 1)
        #expect(take(limiter, .subscription("a")) == nil, "memory stays bounded at the cost of a fresh burst")
    }

    @Test(arguments: [
        ("192.0.2.7", "192.0.2.7"), ("::ffff:192.0.2.7", "192.0.2.7"),
        ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"), ("2001:db8:1:2::1", "2001:db8:1:2::/64"), ("::1", "0:0:0:0::/64"),
    ])
    func aSenderWithoutAKeyCountsUnderItsAddressAndAnIPv6OneUnderItsSlash64(address: String, key: String) throws {
        #expect(WebPushClientAddress.key(try SocketAddress(ipAddress: address, port: 443)) == key)
    }
}

@Suite("Web Push rate-limit settings")
struct WebPushRateLimitSettingsTests {
    @Test func theDefaultsAndTheFileKeys() throws {
        let defaults = WebPushRateLimits()
        #expect(defaults.subscription == .init(burst: 100, perSecond: 10))
        #expect(defaults.vapidKey == .init(burst: 1000, perSecond: 100))
        #expect(defaults.address == .init(burst: 1000, perSecond: 100))

        let file = try RelayFileConfig.parse("""
            webpush_subscription_burst = 5
            webpush_subscription_messages_per_second = 0.5
            webpush_vapid_key_burst = 2000
            webpush_vapid_key_messages_per_second = 250
            webpush_address_burst = 0
            """, fileName: "relay.toml")
        let expected = WebPushRateLimits(subscription: .init(burst: 5, perSecond: 0.5), vapidKey: .init(burst: 2000, perSecond: 250),
                                         address: .init(burst: 0, perSecond: 100))
        #expect(file.webPushRateLimits == expected)
        let config = try RelayConfig.resolve(listen: ListenAddress(host: "127.0.0.1", port: 0), stateDirectory: "/s", senderKeys: [],
                                             registrationKey: nil, file: file, fileName: "relay.toml")
        #expect(config.webPushRateLimits == expected)
        #expect(config.webPushRateLimits.address.isOff)
        let withoutFile = try RelayConfig.resolve(listen: ListenAddress(host: "127.0.0.1", port: 0), stateDirectory: "/s", senderKeys: [],
                                                  registrationKey: nil, file: nil, fileName: "relay.toml")
        #expect(withoutFile.webPushRateLimits == defaults)
    }

    @Test func theShippedExampleShowsTheDefaults() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("etc/pushagent/pushrelay.toml").path
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let uncommented = lines.map { $0.hasPrefix("# webpush_") ? $0.dropFirst(2) : $0 }.joined(separator: "\n")
        #expect(uncommented.components(separatedBy: "\nwebpush_").count == 7, "six keys shown")
        #expect(try RelayFileConfig.parse(uncommented, fileName: path).webPushRateLimits == WebPushRateLimits())
    }

    @Test(arguments: [
        "webpush_vapid_key_burst = -1", "webpush_vapid_key_burst = 1.5", "webpush_address_burst = \"10\"",
        "webpush_subscription_messages_per_second = -0.1", "webpush_address_messages_per_second = inf",
        "webpush_vapid_key_messages_per_second = nan", "webpush_origin_burst = 10",
    ])
    func badValuesStopTheRelayNamingTheKey(text: String) {
        let key = String(text.prefix { $0 != " " })
        #expect {
            try RelayFileConfig.parse(text, fileName: "relay.toml")
        } throws: { error in
            "\(error)".contains("`\(key)`")
        }
    }
}
