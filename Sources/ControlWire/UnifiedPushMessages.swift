import Foundation
import PushAgentCore

/// `POST /v1/webpush/apps` (body: `UnifiedPushApp`): the UnifiedPush distributor registers an app of the caller's
/// session, as the app's connector asked on the session bus (docs/webpush.md, "UnifiedPush apps"): 201 with the new
/// subscription. The same token again is the same registration: 200 with its endpoint, or a new endpoint when the app
/// now gives another VAPID key.
///
/// The answer to a registration: the subscription's name (`pushctl webpush list`, the message routes) and endpoint.
public struct UnifiedPushRegistered: Codable, Sendable, Equatable {
    public var name: String
    public var endpoint: String
    public init(name: String, endpoint: String) {
        self.name = name
        self.endpoint = endpoint
    }
}

/// `POST /v1/webpush/apps/unregister`: the app's connector unregistered; its subscription is removed at the relay
/// (410 to its senders) and here. Answers the removed subscription, or 404 when the token names none of the caller's.
public struct UnifiedPushUnregisterRequest: Codable, Sendable {
    public var token: String
    public init(token: String) { self.token = token }
}
