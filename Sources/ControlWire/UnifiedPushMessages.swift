import Foundation

/// `POST /v1/webpush/apps` (body: `UnifiedPushApp`): the UnifiedPush distributor registers an app of the caller's
/// session, as the app's connector asked on the session bus (docs/webpush.md, "UnifiedPush apps"): 201 with the new
/// subscription as the list shows it (`WebPushSubscriptionsResponse.Subscription`). The same token again is the same
/// registration: 200 with it, or a new endpoint when the app now gives another VAPID key.
///
/// `POST /v1/webpush/apps/unregister`: the app's connector unregistered; its subscription is removed at the relay
/// (410 to its senders) and here. Answers the removed subscription, or 404 when the token names none of the caller's.
public struct UnifiedPushUnregisterRequest: Codable, Sendable {
    public var token: String
    public init(token: String) { self.token = token }
}
