import Foundation
import PushAgentCore

/// A Web Push subscription a local user made: the relay's subscription, its endpoint, and who reads what comes
/// through it.
public struct WebPushSubscription: Sendable {
    public var name: String
    public var ownerUID: UInt32
    /// The relay's id for it: the relay's messages name it in `webpush.subscription`.
    public var relayID: String
    public var endpoint: String
    public var receiver: WebPushReceiver
    public var createdAt: Date

    public init(name: String, ownerUID: UInt32, relayID: String, endpoint: String, receiver: WebPushReceiver, createdAt: Date) {
        self.name = name
        self.ownerUID = ownerUID
        self.relayID = relayID
        self.endpoint = endpoint
        self.receiver = receiver
        self.createdAt = createdAt
    }
}

/// Who reads a subscription's messages.
public enum WebPushReceiver: Sendable {
    /// A script (`pushctl webpush subscribe`): the daemon holds the RFC 8291 keys and hands out plaintext.
    case script(WebPushKeys)
    /// A UnifiedPush app, through the distributor: the app holds its keys, and gets the body as the sender posted it.
    case app(UnifiedPushApp)

    public var app: UnifiedPushApp? { if case .app(let app) = self { app } else { nil } }
}

/// A subscription with what came through it, for listing.
public struct WebPushSubscriptionUsage: Sendable {
    public var subscription: WebPushSubscription
    public var received: Int
    public var undelivered: Int
    public var lastDeliveryAt: Date?
}

/// A Web Push message as the relay delivered it: still encrypted for the subscription's keys.
public struct WebPushArrival: Sendable, Equatable {
    public var relayMessageID: String
    public var seq: Int64
    public var subscriptionID: String
    public var body: Data
    public var urgency: String
    public var topic: String?
    /// When its sender's TTL runs out: not handed to anyone after that.
    public var expiresAt: Date?

    public init(relayMessageID: String, seq: Int64, subscriptionID: String, body: Data, urgency: String, topic: String?,
                expiresAt: Date? = nil) {
        self.relayMessageID = relayMessageID
        self.seq = seq
        self.subscriptionID = subscriptionID
        self.body = body
        self.urgency = urgency
        self.topic = topic
        self.expiresAt = expiresAt
    }

    /// What storing it did: a redelivery is absorbed, a message for a subscription that is gone is dropped.
    public enum Outcome: Sendable, Equatable { case stored, duplicate, unknownSubscription }
}

/// A stored message not yet acknowledged, body still encrypted.
public struct StoredWebPushMessage: Sendable, Equatable {
    public var id: String
    public var body: Data
    public var urgency: String
    public var topic: String?
    public var receivedAt: Date
}
