/// Why a push service refuses a request, with the status RFC 8030 and RFC 8292 give it. The reason is written for
/// the sender's developer: it says what was wrong and what the request should have carried.
public struct WebPushRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    public var status: Int
    public var reason: String

    public init(status: Int, _ reason: String) {
        self.status = status
        self.reason = reason
    }

    public var description: String { "\(status): \(reason)" }

    static func badRequest(_ reason: String) -> WebPushRefusal { WebPushRefusal(status: 400, reason) }
    /// RFC 8292 §4.2: a restricted subscription's message without VAPID.
    static func unauthorized(_ reason: String) -> WebPushRefusal { WebPushRefusal(status: 401, reason) }
    /// RFC 8292 §4.2: VAPID that is there but wrong (signature, audience, expiry, another key).
    static func forbidden(_ reason: String) -> WebPushRefusal { WebPushRefusal(status: 403, reason) }
}
