import CurlHTTP
import Foundation
import Testing
@testable import PushRelay

/// The per-origin rate limits through the relay's routes (SQLite: the buckets are in memory, the same on either
/// store). A token comes back every 1000 s, so however slowly a loaded machine runs a test, none comes back in it;
/// the arithmetic is WebPushRateLimiterTests'.
@Suite("Web Push per-origin rate limits")
struct WebPushOriginRateTests {
    private static let slow = 0.001

    @Test func oneVAPIDKeySendingToManySubscriptionsIsLimitedAcrossThem() async throws {
        let limits = WebPushRateLimits(subscription: .init(burst: 2, perSecond: Self.slow), vapidKey: .init(burst: 3, perSecond: Self.slow))
        try await withRelay(webPushRateLimits: limits) { relay in
            let device = try await relay.register(), otherDevice = try await relay.register()
            let server = VAPIDSigner(), otherServer = VAPIDSigner()
            let first = try await relay.subscribe(device, applicationServerKey: server.publicKey)
            let second = try await relay.subscribe(otherDevice, applicationServerKey: server.publicKey)
            let othersSubscription = try await relay.subscribe(device, applicationServerKey: otherServer.publicKey)
            let signed = try server.authorization(audience: relay.baseURL)

            #expect(try await relay.push(first, authorization: signed).status == 201)
            #expect(try await relay.push(first, authorization: signed).status == 201)
            #expect(try await relay.push(second, authorization: signed).status == 201)
            let refused = try await relay.push(second, authorization: signed)
            #expect(refused.status == 429, "the key's fourth message, though the subscription has taken one of its two")
            #expect((900...1000).contains(Int(refused.header("Retry-After") ?? "") ?? 0), "\(refused.headerText)")
            #expect(refused.text.contains("VAPID key"), "\(refused.text)")
            #expect(try await relay.push(othersSubscription, authorization: otherServer.authorization(audience: relay.baseURL)).status == 201,
                    "another application server has its own bucket")
            #expect(try await relay.poll(device).messages.count == 3)
            #expect(try await relay.poll(otherDevice).messages.count == 1)
        }
    }

    @Test func unsignedSendersFromOneAddressAreLimitedAcrossOpenSubscriptions() async throws {
        let limits = WebPushRateLimits(subscription: .init(burst: 2, perSecond: Self.slow), address: .init(burst: 3, perSecond: Self.slow))
        try await withRelay(webPushRateLimits: limits) { relay in
            let device = try await relay.register()
            let server = VAPIDSigner()
            let first = try await relay.subscribe(device), second = try await relay.subscribe(device)
            let restricted = try await relay.subscribe(device, applicationServerKey: server.publicKey)

            #expect(try await relay.push(first).status == 201)
            #expect(try await relay.push(first).status == 201)
            #expect(try await relay.push(second).status == 201)
            let refused = try await relay.push(second)
            #expect(refused.status == 429)
            #expect((900...1000).contains(Int(refused.header("Retry-After") ?? "") ?? 0), "\(refused.headerText)")
            #expect(refused.text.contains("from 127.0.0.1"), "\(refused.text)")
            #expect(try await relay.push(restricted, authorization: server.authorization(audience: relay.baseURL)).status == 201,
                    "a subscription restricted to its server's key counts that key, not the address")
            #expect(try await relay.poll(device).messages.count == 4)
        }
    }

    /// A key made up for the message names nobody: a subscription that takes messages from anyone counts them under
    /// the address, signed or not, so signing each with a fresh key gets round nothing.
    @Test func signingWithFreshKeysDoesNotEscapeTheAddressLimit() async throws {
        try await withRelay(webPushRateLimits: WebPushRateLimits(address: .init(burst: 2, perSecond: Self.slow))) { relay in
            let device = try await relay.register()
            let subscription = try await relay.subscribe(device)
            for _ in 1...2 {
                #expect(try await relay.push(subscription, authorization: VAPIDSigner().authorization(audience: relay.baseURL)).status == 201)
            }
            #expect(try await relay.push(subscription, authorization: VAPIDSigner().authorization(audience: relay.baseURL)).status == 429)
            #expect(try await relay.push(subscription).status == 429)
        }
    }

    @Test func forgedSignaturesUseUpNoOnesRate() async throws {
        let limits = WebPushRateLimits(vapidKey: .init(burst: 2, perSecond: Self.slow), address: .init(burst: 2, perSecond: Self.slow))
        try await withRelay(webPushRateLimits: limits) { relay in
            let device = try await relay.register()
            let server = VAPIDSigner(), forger = VAPIDSigner()
            let restricted = try await relay.subscribe(device, applicationServerKey: server.publicKey)
            let open = try await relay.subscribe(device)
            // The server's key in k, the forger's signature in t.
            let forged = try forger.authorization(audience: relay.baseURL).replacingOccurrences(of: forger.publicKey, with: server.publicKey)
            for subscription in [restricted, open, restricted, open, restricted, open] {
                #expect(try await relay.push(subscription, authorization: forged).status == 403)
            }
            let signed = try server.authorization(audience: relay.baseURL)
            #expect(try await relay.push(restricted, authorization: signed).status == 201)
            #expect(try await relay.push(restricted, authorization: signed).status == 201)
            #expect(try await relay.push(restricted, authorization: signed).status == 429, "the key's burst was whole")
            #expect(try await relay.push(open).status == 201)
            #expect(try await relay.push(open).status == 201)
            #expect(try await relay.push(open).status == 429, "the address's burst was whole")
        }
    }

    @Test func aLimitSetToZeroIsOff() async throws {
        // The bursts are below the messages sent: only a limit that is off lets them all through.
        let limits = WebPushRateLimits(subscription: .init(burst: 0, perSecond: Self.slow), vapidKey: .init(burst: 2, perSecond: 0),
                                       address: .init(burst: 0, perSecond: 0))
        try await withRelay(webPushRateLimits: limits) { relay in
            let device = try await relay.register()
            let server = VAPIDSigner()
            let restricted = try await relay.subscribe(device, applicationServerKey: server.publicKey), open = try await relay.subscribe(device)
            let signed = try server.authorization(audience: relay.baseURL)
            for _ in 1...5 {
                #expect(try await relay.push(restricted, authorization: signed).status == 201)
                #expect(try await relay.push(open).status == 201)
            }
            #expect(try await relay.poll(device).messages.count == 10)
        }
    }
}

extension HTTPResponse {
    fileprivate var headerText: String { "Retry-After: \(header("Retry-After") ?? "none")" }
}
