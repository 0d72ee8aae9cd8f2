import Foundation

/// A Web Push subscription (RFC 8030 §4): what a device asked for so that an application server may push to it at
/// `/push/<token>`. The token itself is never stored, only its SHA-256 digest, so the database holds no endpoint.
struct WebPushSubscription: Sendable, Equatable {
    var id: String
    var deviceID: String
    /// The application server's P-256 key (65 bytes, uncompressed) when the subscription is restricted to it
    /// (RFC 8292 §4); its messages then need VAPID signed by that key.
    var applicationServerKey: Data?
    /// Milliseconds since the epoch.
    var createdAt: Int64
}

/// What the push endpoint finds behind a token.
enum WebPushSubscriptionLookup: Sendable, Equatable {
    case active(WebPushSubscription)
    /// Removed by its device, or its device deleted: the sender should stop (410 Gone).
    case removed
    case unknown
}
