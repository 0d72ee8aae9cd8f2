import RelayWire
import WebPushWire

/// A Web Push message as the device's queue carries it (`WebPushDataKey`).
enum WebPushMessageData {
    /// The message for `request` to `subscription`: a topic collapses into the subscription's older undelivered
    /// message with the same topic (RFC 8030 §5.4).
    static func outgoing(_ request: WebPushRequest, body: [UInt8], subscription: WebPushSubscription) -> OutgoingMessage {
        var data = [WebPushDataKey.subscription.rawValue: subscription.id,
                    WebPushDataKey.body.rawValue: Identifiers.base64URL(body),
                    WebPushDataKey.urgency.rawValue: request.urgency.rawValue]
        data[WebPushDataKey.topic.rawValue] = request.topic
        return OutgoingMessage(
            data: data, notification: nil, priority: request.urgency == .high ? .high : .normal,
            collapseKey: request.topic.map { "webpush:\(subscription.id):\($0)" },
            ttlMilliseconds: Int64(request.ttl) * 1000)
    }
}
