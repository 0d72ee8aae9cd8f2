import CurlHTTP
import Foundation
import Testing
@testable import PushRelay

@Suite("Web Push service (RFC 8030)", .postgres)
struct WebPushServiceTests {
    @Test(arguments: TestBackend.available) func aPushedBodyReachesTheDeviceByteForByte(backend: TestBackend) async throws {
        try await withRelay(on: backend) { relay in
            let device = try await relay.register()
            let subscription = try await relay.subscribe(device)
            #expect(subscription.endpoint.hasPrefix(relay.baseURL + "/push/"))
            let body = Data((0..<4096).map { _ in UInt8.random(in: 0...255) })

            let pushed = try await relay.push(subscription, body: body, ttl: "120", urgency: "high")
            #expect(pushed.status == 201, "\(pushed.text)")
            #expect(pushed.header("TTL") == "120")
            let location = try #require(pushed.header("Location"))
            #expect(location.hasPrefix("/push/message/"))

            let message = try #require(try await relay.poll(device).messages.first)
            #expect(message.id == String(location.dropFirst("/push/message/".count)))
            #expect(message.data["webpush.subscription"] == subscription.id)
            #expect(message.data["webpush.urgency"] == "high")
            #expect(message.data["webpush.topic"] == nil)
            #expect(message.priority == "high")
            #expect(try decodedBody(message) == body)
        }
    }

    @Test(arguments: TestBackend.available) func aRestrictedSubscriptionTakesOnlyItsKeysVAPID(backend: TestBackend) async throws {
        try await withRelay(on: backend) { relay in
            let device = try await relay.register()
            let server = VAPIDSigner(), stranger = VAPIDSigner()
            let subscription = try await relay.subscribe(device, applicationServerKey: server.publicKey)

            #expect(try await relay.push(subscription).status == 401)
            #expect(try await relay.push(subscription, authorization: stranger.authorization(audience: relay.baseURL)).status == 403)
            #expect(try await relay.push(subscription, authorization: server.authorization(audience: "https://elsewhere.example")).status == 403)
            let signed = try await relay.push(subscription, body: Data("hello".utf8), authorization: server.authorization(audience: relay.baseURL))
            #expect(signed.status == 201, "\(signed.text)")
            #expect(try await relay.poll(device).messages.map(decodedBody) == [Data("hello".utf8)])
        }
    }

    @Test(arguments: TestBackend.available) func aNewerMessageWithTheSameTopicReplacesAnUndeliveredOne(backend: TestBackend) async throws {
        try await withRelay(on: backend) { relay in
            let device = try await relay.register()
            let subscription = try await relay.subscribe(device)
            for (text, topic) in [("old", "status"), ("other", nil), ("new", "status")] {
                #expect(try await relay.push(subscription, body: Data(text.utf8), topic: topic).status == 201)
            }
            let messages = try await relay.poll(device).messages
            #expect(try messages.map(decodedBody) == [Data("other".utf8), Data("new".utf8)])
            #expect(messages.last?.data["webpush.topic"] == "status")
        }
    }

    /// On SQLite the relay sees every poll; on PostgreSQL another instance may hold it, so TTL 0 always gets the
    /// delivery window there (as for the send API's `ttl: "0s"`).
    @Test func aZeroTTLMessageForADeviceNotPollingIsDropped() async throws {
        try await withRelay { relay in
            let device = try await relay.register()
            let subscription = try await relay.subscribe(device)
            let pushed = try await relay.push(subscription, body: Data("now or never".utf8), ttl: "0")
            #expect(pushed.status == 201)
            #expect(pushed.header("TTL") == "0")
            #expect(try await relay.poll(device).messages.isEmpty)
        }
    }

    @Test(arguments: TestBackend.available) func aZeroTTLMessageReachesAPollInProgress(backend: TestBackend) async throws {
        try await withRelay(on: backend) { relay in
            let device = try await relay.register()
            let subscription = try await relay.subscribe(device)
            let poll = Task { try await relay.poll(device, query: "after=0&wait=10") }
            try await relay.waitForWaitingPolls(1)
            #expect(try await relay.push(subscription, body: Data("now".utf8), ttl: "0").status == 201)
            #expect(try await poll.value.messages.map(decodedBody) == [Data("now".utf8)])
        }
    }

    @Test func malformedRequestsAreRefusedSayingWhy() async throws {
        try await withRelay { relay in
            let device = try await relay.register()
            let subscription = try await relay.subscribe(device)
            let tooLarge = try await relay.push(subscription, body: Data(count: 4097))
            #expect(tooLarge.status == 413)
            #expect(tooLarge.text.contains("4096"))
            let noTTL = try await relay.push(subscription, ttl: nil)
            #expect(noTTL.status == 400)
            #expect(noTTL.text.contains("TTL"))
            #expect(try await relay.http("POST", subscription.path, rawBody: Data("x".utf8), headers: [
                (name: "TTL", value: "60"), (name: "Content-Encoding", value: "aesgcm")]).status == 415)
            #expect(try await relay.poll(device).messages.isEmpty)
        }
    }

    @Test(arguments: TestBackend.available) func unknownRemovedAndDeletedDevicesSubscriptionsAreRefused(backend: TestBackend) async throws {
        try await withRelay(on: backend) { relay in
            #expect(try await relay.push(TestSubscription(id: "", endpoint: relay.baseURL + "/push/unknown")).status == 404)
            #expect(try await relay.http("GET", "/push/unknown").status == 404)

            let device = try await relay.register()
            let removed = try await relay.subscribe(device), kept = try await relay.subscribe(device)
            let discovery = try await relay.http("GET", kept.path)
            #expect(discovery.status == 200)
            #expect(discovery.text == #"{"unifiedpush":{"version":1}}"#)

            #expect(try await relay.http("DELETE", "/v1/devices/\(device.id)/webpush/\(removed.id)", bearer: device.secret).status == 204)
            #expect(try await relay.http("DELETE", "/v1/devices/\(device.id)/webpush/\(removed.id)", bearer: device.secret).status == 404)
            #expect(try await relay.push(removed).status == 410)
            #expect(try await relay.http("GET", removed.path).status == 410)
            #expect(try await relay.push(kept).status == 201)

            #expect(try await relay.http("DELETE", "/v1/devices/\(device.id)", bearer: device.secret).status == 204)
            #expect(try await relay.push(kept).status == 410)
            #expect(try await relay.http("GET", kept.path).status == 410)
        }
    }

    @Test(arguments: TestBackend.available) func aDeviceListsItsSubscriptionsWithoutEndpoints(backend: TestBackend) async throws {
        try await withRelay(on: backend) { relay in
            let device = try await relay.register(), other = try await relay.register()
            let server = VAPIDSigner()
            let first = try await relay.subscribe(device), second = try await relay.subscribe(device, applicationServerKey: server.publicKey)
            _ = try await relay.subscribe(other)
            #expect(try await relay.http("GET", "/v1/devices/\(device.id)/webpush", bearer: other.secret).status == 401)
            #expect(try await relay.http("DELETE", "/v1/devices/\(device.id)/webpush/\(first.id)", bearer: other.secret).status == 401)
            #expect(try await relay.http("DELETE", "/v1/devices/\(other.id)/webpush/\(first.id)", bearer: other.secret).status == 404,
                    "a device removes only its own subscriptions")

            let listed = try await relay.http("GET", "/v1/devices/\(device.id)/webpush", bearer: device.secret)
            #expect(listed.status == 200)
            let subscriptions = try #require(
                try JSONSerialization.jsonObject(with: listed.body) as? [String: [[String: String]]])["subscriptions"]
            #expect(subscriptions?.compactMap { $0["id"] }.sorted() == [first.id, second.id].sorted())
            #expect(subscriptions?.allSatisfy { $0["endpoint"] == nil && $0["created_at"] != nil } == true)
            #expect(subscriptions?.first { $0["id"] == second.id }?["application_server_key"] == server.publicKey)
            #expect(try await relay.http("POST", "/v1/devices/\(device.id)/webpush", bearer: device.secret,
                                         json: ["application_server_key": "not-a-key"]).status == 400)
        }
    }

    @Test func aSubscriptionOverItsRateIsToldWhenToRetry() async throws {
        // A token per 1000 s: none comes back however slowly a loaded machine runs the test (the bucket's arithmetic
        // is WebPushRateLimiterTests').
        try await withRelay(webPushRateLimits: WebPushRateLimits(subscription: .init(burst: 2, perSecond: 0.001))) { relay in
            let device = try await relay.register()
            let subscription = try await relay.subscribe(device), other = try await relay.subscribe(device)
            #expect(try await relay.push(subscription).status == 201)
            #expect(try await relay.push(subscription).status == 201)
            let refused = try await relay.push(subscription)
            #expect(refused.status == 429)
            #expect((900...1000).contains(Int(refused.header("Retry-After") ?? "") ?? 0), "the seconds until a token is back")
            #expect(try await relay.push(other).status == 201, "each subscription has its own bucket")
            #expect(try await relay.poll(device).messages.count == 3)
        }
    }

    @Test func refusedMessagesDoNotUseUpARestrictedSubscriptionsRate() async throws {
        try await withRelay(webPushRateLimits: WebPushRateLimits(subscription: .init(burst: 2, perSecond: 0.001))) { relay in
            let device = try await relay.register()
            let server = VAPIDSigner(), stranger = VAPIDSigner()
            let subscription = try await relay.subscribe(device, applicationServerKey: server.publicKey)
            for _ in 1...3 {
                #expect(try await relay.push(subscription, authorization: stranger.authorization(audience: relay.baseURL)).status == 403)
            }
            for _ in 1...2 {
                #expect(try await relay.push(subscription, authorization: server.authorization(audience: relay.baseURL)).status == 201)
            }
            #expect(try await relay.push(subscription, authorization: server.authorization(audience: relay.baseURL)).status == 429)
        }
    }

    @Test(arguments: TestBackend.available) func aFullDeviceQueueIsRetriedLater(backend: TestBackend) async throws {
        try await withRelay(on: backend, maximumQueuedPerDevice: 1) { relay in
            let device = try await relay.register()
            let subscription = try await relay.subscribe(device)
            #expect(try await relay.push(subscription, body: Data("first".utf8)).status == 201)
            let full = try await relay.push(subscription, body: Data("second".utf8))
            #expect(full.status == 429, "\(full.text)")
            #expect(full.header("Retry-After") == "60")
            #expect(try await relay.poll(device).messages.map(decodedBody) == [Data("first".utf8)], "the refused message changed nothing")
        }
    }

    @Test func theSendAPIRefusesWebPushDataKeys() async throws {
        try await withRelay { relay in
            let device = try await relay.register()
            let messages: [[String: Any]] = [["data": ["webpush.body": "x"]], ["android": ["data": ["webpush.subscription": "x"]]]]
            for message in messages {
                let refused = try await relay.send(to: device, message)
                #expect(refused.status == 400)
                #expect(try fcmErrorCode(refused) == "INVALID_ARGUMENT")
                #expect((try errorObject(refused)["message"] as? String)?.contains("reserved") == true)
            }
            #expect(try await relay.poll(device).messages.isEmpty)
        }
    }
}

private func decodedBody(_ message: PollBody.Message) throws -> Data {
    var text = try #require(message.data["webpush.body"]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    #expect(!text.contains("="), "unpadded")
    text += String(repeating: "=", count: (4 - text.count % 4) % 4)
    return try #require(Data(base64Encoded: text))
}
