/// How a Web Push message rides a device's queue: an ordinary relay message whose data map says which subscription it
/// came through and carries the body as the sender encrypted it. The relay writes these keys and the device reads
/// them; the send API refuses every key with the reserved prefix, so a provider push can never pose as an app's
/// message.
public enum WebPushDataKey: String, Sendable, CaseIterable {
    case subscription = "webpush.subscription"
    /// The body, unpadded base64url, byte for byte what the sender posted (still encrypted for the app).
    case body = "webpush.body"
    case urgency = "webpush.urgency"
    case topic = "webpush.topic"

    public static let reservedPrefix = "webpush."
}
