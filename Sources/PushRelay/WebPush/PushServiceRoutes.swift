import Foundation
import HTTPTypes
import WebPushWire

/// The application-server side of Web Push (RFC 8030 §5): `POST /push/<token>` queues a message for the
/// subscription's device on its ordinary durable queue; `GET` answers UnifiedPush's discovery. Refusals are plain
/// text saying why, with the status RFC 8030 and RFC 8292 give them.
struct PushServiceRoutes: Sendable {
    /// The longest TTL kept, FCM's four weeks; a longer one is lowered and the answer's `TTL` says so.
    static let maximumTTLSeconds = Int(FCMSendRequest.maxTTLMilliseconds / 1000)
    /// A full device queue is no sender's fault alone: it is retried later, once the device has polled.
    private static let queueFullRetryAfterSeconds = 60

    let store: any RelayStorage
    let waiters: PollWaiters
    let metrics: RelayMetrics
    let zeroTTL: ZeroTTLAdmission
    let origin: WebPushOrigin
    let limiter: WebPushRateLimiter

    func add(to router: inout RelayRouter) {
        router.add(.post, "/push/:token", maxBody: WebPushRequest.maximumBodyLength) { request in
            try await answering(request) { try await push(request) }
        }
        router.add(.get, "/push/:token") { request in
            try await answering(request) {
                _ = try await subscription(request)
                return .json(.ok, #"{"unifiedpush":{"version":1}}"#)
            }
        }
    }

    private func answering(_ request: RelayRequest, _ handler: () async throws -> RelayResponse) async throws -> RelayResponse {
        do {
            return try await handler()
        } catch let refusal as WebPushRefusal {
            return Self.refusal(refusal)
        } catch is StoreUnavailable {
            metrics.add(.unavailable)
            return Self.refusal(WebPushRefusal(status: 503, "the relay's database is not answering, so the message was not stored; retry"),
                                retryAfter: StoreUnavailable.retryAfterSeconds)
        } catch is StoreOutcomeUnknown {
            metrics.add(.outcomeUnknown)
            return Self.refusal(WebPushRefusal(status: 500, "the relay's database took the message but its answer was lost: it may or may not be queued"))
        }
    }

    private static func refusal(_ refusal: WebPushRefusal, retryAfter: Int? = nil) -> RelayResponse {
        var response = RelayResponse.text(HTTPResponse.Status(code: refusal.status), refusal.reason + "\n")
        if let retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }

    /// The live subscription the path's token names: 404 for a token never issued, 410 for one removed.
    private func subscription(_ request: RelayRequest) async throws -> WebPushSubscription {
        let token = String(request.parameters["token"] ?? "")
        switch try await store.webPushSubscription(tokenDigest: secretDigest(token)) {
        case .active(let subscription): return subscription
        case .removed: throw WebPushRefusal(status: 410, "this subscription was removed by its device: stop sending to it")
        case .unknown: throw WebPushRefusal(status: 404, "no subscription has this endpoint")
        }
    }

    private func push(_ request: RelayRequest) async throws -> RelayResponse {
        let declaredLength = request.headers[.contentLength].flatMap { Int($0) }
        let message = try WebPushRequest(headers: request.headers, bodyLength: declaredLength, maximumTTL: Self.maximumTTLSeconds)
        let subscription = try await subscription(request)
        guard let origin = origin.origin(requestAuthority: request.head.authority) else {
            throw WebPushRefusal(status: 400, "the request has no Host header")
        }
        let vapid = try VAPIDAuthorization(header: request.headers[.authorization])
        try VAPIDAuthorization.authorize(credentials: vapid, subscriptionKey: subscription.applicationServerKey,
                                         origin: origin, now: nowMilliseconds() / 1000)
        // After VAPID: messages a restricted subscription refuses, and forged signatures, use up nobody's rate.
        if let refusal = limiter.refusal(taking: Self.rateKeys(request, verifiedKey: vapid?.publicKey, subscription: subscription)) {
            return Self.refusal(WebPushRefusal(status: 429, "too many messages \(Self.describe(refusal.key)); retry in \(refusal.retryAfterSeconds) s"),
                                retryAfter: refusal.retryAfterSeconds)
        }
        let body = try Self.body(request)
        let outgoing = WebPushMessageData.outgoing(message, body: body, subscription: subscription)
        guard let kept = zeroTTL.admit(outgoing, deviceID: subscription.deviceID, logger: request.logger) else {
            return Self.created(messageID: Identifiers.messageID(), ttl: 0)
        }
        let enqueued: EnqueueResult?
        do {
            enqueued = try await store.enqueue(kept, deviceID: subscription.deviceID, now: nowMilliseconds())
        } catch let full as DeviceQueueFull {
            return Self.refusal(WebPushRefusal(status: 429, "the device has \(full.limit) undelivered messages, the most the relay keeps; retry later"),
                                retryAfter: Self.queueFullRetryAfterSeconds)
        }
        // The device was deleted since the lookup: its subscriptions went with it.
        guard let enqueued else { throw WebPushRefusal(status: 410, "this subscription's device is gone: stop sending to it") }
        waiters.notify(deviceID: subscription.deviceID)
        metrics.add(.sent)
        metrics.add(.collapsed, enqueued.collapsed)
        request.logger.debug("Web Push message accepted", metadata: [
            "message_id": "\(enqueued.message.id)", "device_id": "\(subscription.deviceID)", "subscription_id": "\(subscription.id)"])
        return Self.created(messageID: enqueued.message.id, ttl: message.ttl)
    }

    /// The buckets a message counts in (`WebPushRateLimits`): its subscription's, its VAPID key's once the signature
    /// verified, and its client address's when its subscription takes messages from any sender.
    /// `verifiedKey`: the header's `k`, read once in `push` and only passed on once `authorize` verified the signature.
    private static func rateKeys(_ request: RelayRequest, verifiedKey: Data?, subscription: WebPushSubscription) -> [WebPushRateLimiter.Key] {
        var keys: [WebPushRateLimiter.Key] = [.subscription(subscription.id)]
        if let verifiedKey { keys.append(.vapidKey(verifiedKey)) }
        if subscription.applicationServerKey == nil, let address = WebPushClientAddress.key(request.clientAddress) {
            keys.append(.address(address))
        }
        return keys
    }

    private static func describe(_ key: WebPushRateLimiter.Key) -> String {
        switch key {
        case .subscription: "to this subscription"
        case .vapidKey: "from this VAPID key, across the subscriptions it sends to"
        case .address(let address): "from \(address) to subscriptions without an application server key"
        }
    }

    /// The body as sent: Web Push bodies are under `Content-Encoding: aes128gcm`, which `RelayRequest.bodyData`
    /// refuses for the relay's JSON endpoints.
    private static func body(_ request: RelayRequest) throws(WebPushRefusal) -> [UInt8] {
        switch request.body {
        case .success(let buffer): return Array(buffer.readableBytesView)
        case .failure(.tooLarge(let limit)):
            throw WebPushRefusal(status: 413, "the body is larger than \(limit) bytes, the most a push message carries (RFC 8291 §4)")
        case .failure(let failure): throw WebPushRefusal(status: 400, failure.message)
        }
    }

    /// RFC 8030 §5: `201 Created`, the message's resource in `Location`, and the TTL the service kept.
    private static func created(messageID: String, ttl: Int) -> RelayResponse {
        var response = RelayResponse(status: .created)
        response.headers[.location] = "/push/message/\(messageID)"
        response.headers[.webPushTTL] = String(ttl)
        return response
    }
}

extension HTTPField.Name {
    static let webPushTTL = HTTPField.Name("TTL")!
}
