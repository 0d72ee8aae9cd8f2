import WebPushWire

/// How a Web Push message rides a device's queue: an ordinary relay message whose data map says which subscription
/// it came through and carries the body as the sender encrypted it. The send API refuses every key with the
/// reserved prefix, so a provider push can never pose as an app's message.
enum WebPushMessageData: String {
    case subscription = "webpush.subscription"
    /// The body, unpadded base64url, byte for byte what the sender posted (still encrypted for the app).
    case body = "webpush.body"
    case urgency = "webpush.urgency"
    case topic = "webpush.topic"

    static let reservedPrefix = "webpush."

    /// The message for `request` to `subscription`: a topic collapses into the subscription's older undelivered
    /// message with the same topic (RFC 8030 §5.4).
    static func outgoing(_ request: WebPushRequest, body: [UInt8], subscription: WebPushSubscription) -> OutgoingMessage {
        var data = [Self.subscription.rawValue: subscription.id, Self.body.rawValue: Identifiers.base64URL(body),
                    urgency.rawValue: request.urgency.rawValue]
        data[topic.rawValue] = request.topic
        return OutgoingMessage(
            data: data, notification: nil, priority: request.urgency == .high ? .high : .normal,
            collapseKey: request.topic.map { "webpush:\(subscription.id):\($0)" },
            ttlMilliseconds: Int64(request.ttl) * 1000)
    }
}
