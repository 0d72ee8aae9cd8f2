import Foundation
import PushAgentCore

/// `POST /v1/webpush/subscriptions`: a new Web Push subscription for the caller, named so its owner can listen to it.
public struct WebPushSubscribeRequest: Codable, Sendable {
    public var name: String
    public init(name: String) { self.name = name }

    /// Names are path segments and command-line arguments: kept plain so they need no quoting anywhere.
    public static func problem(withName name: String) -> String? {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        guard (1...64).contains(name.count), name.unicodeScalars.allSatisfy(allowed.contains), name.first != "." else {
            return "a subscription name is 1 to 64 letters, digits, '.', '_' or '-', not starting with '.' (e.g. backup-job), not '\(name)'"
        }
        return nil
    }
}

/// The new subscription as a browser's `PushSubscription.toJSON()` gives it, so any Web Push library can send to
/// it as it is, with its name beside.
public struct WebPushSubscriptionCreated: Codable, Sendable, Equatable {
    public struct Keys: Codable, Sendable, Equatable {
        /// The receiving public key, an uncompressed P-256 point, unpadded base64url.
        public var p256dh: String
        /// The 16-byte auth secret, unpadded base64url.
        public var auth: String
    }

    public var name: String
    public var endpoint: String
    public var keys: Keys

    public init(name: String, endpoint: String, p256dh: String, auth: String) {
        self.name = name
        self.endpoint = endpoint
        keys = Keys(p256dh: p256dh, auth: auth)
    }

    enum CodingKeys: String, CodingKey { case name, endpoint, expirationTime, keys }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        endpoint = try container.decode(String.self, forKey: .endpoint)
        keys = try container.decode(Keys.self, forKey: .keys)
    }

    /// `expirationTime` is written as null, as browsers write it: the subscription lasts until it is removed.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(endpoint, forKey: .endpoint)
        try container.encodeNil(forKey: .expirationTime)
        try container.encode(keys, forKey: .keys)
    }
}

/// `GET /v1/webpush/subscriptions`: the caller's subscriptions (root: everyone's).
public struct WebPushSubscriptionsResponse: Codable, Sendable, Equatable {
    public struct Subscription: Codable, Sendable, Equatable {
        public var name: String
        public var ownerUid: UInt32
        public var endpoint: String
        public var createdAt: Date
        public var received: Int
        public var undelivered: Int
        public var lastDeliveryAt: Date?
        /// The UnifiedPush app it was registered for; nil for a script's subscription.
        public var app: UnifiedPushApp?
        /// The relay has forgotten it (pushagentd registered with the relay anew): its senders get 404 or 410. An app's
        /// is made again when the app registers again (the distributor does so); a script's, by subscribing again.
        public var stale: Bool

        public init(name: String, ownerUid: UInt32, endpoint: String, createdAt: Date, received: Int, undelivered: Int,
                    lastDeliveryAt: Date?, app: UnifiedPushApp?, stale: Bool) {
            self.name = name
            self.ownerUid = ownerUid
            self.endpoint = endpoint
            self.createdAt = createdAt
            self.received = received
            self.undelivered = undelivered
            self.lastDeliveryAt = lastDeliveryAt
            self.app = app
            self.stale = stale
        }

        enum CodingKeys: String, CodingKey {
            case name, ownerUid = "owner_uid", endpoint, createdAt = "created_at", received, undelivered
            case lastDeliveryAt = "last_delivery_at", app, stale
        }
    }

    public var subscriptions: [Subscription]
    public init(subscriptions: [Subscription]) { self.subscriptions = subscriptions }
}

/// `GET /v1/webpush/subscriptions/{name}/messages[?wait=SECONDS]`: the messages not yet acknowledged and not past
/// their TTL, oldest first (a script's decrypted; an app's as the sender posted them, for the app to decrypt); with
/// `wait`, held until one arrives or that many seconds (at most `maximumWait`) pass.
public struct WebPushMessagesResponse: Codable, Sendable, Equatable {
    public static let maximumWait = 30

    public struct Message: Codable, Sendable, Equatable {
        /// The relay's id for it: what `ack` takes.
        public var id: String
        public var receivedAt: Date
        public var urgency: String
        public var topic: String?
        /// The plaintext the sender encrypted, standard base64; nil when it did not decrypt.
        public var base64: String?
        /// The plaintext, when it is UTF-8.
        public var text: String?
        /// Why the body did not decrypt (the sender encrypted it for other keys, or garbled it).
        public var error: String?
        /// A UnifiedPush app's message: the body byte for byte as the sender posted it, standard base64 (the app
        /// holds the keys; `base64` and `text` are then nil).
        public var encrypted: String?

        public init(id: String, receivedAt: Date, urgency: String, topic: String?, plaintext: Result<Data, some Error>) {
            self.id = id
            self.receivedAt = receivedAt
            self.urgency = urgency
            self.topic = topic
            switch plaintext {
            case .success(let data):
                base64 = data.base64EncodedString()
                text = String(validating: data, as: UTF8.self)
            case .failure(let problem):
                error = "the body does not decrypt with the subscription's keys: \(problem)"
            }
        }

        public init(id: String, receivedAt: Date, urgency: String, topic: String?, encrypted body: Data) {
            self.id = id
            self.receivedAt = receivedAt
            self.urgency = urgency
            self.topic = topic
            encrypted = body.base64EncodedString()
        }

        enum CodingKeys: String, CodingKey { case id, receivedAt = "received_at", urgency, topic, base64, text, error, encrypted }
    }

    public var messages: [Message]
    public init(messages: [Message]) { self.messages = messages }
}

/// `POST /v1/webpush/subscriptions/{name}/messages/ack`: the messages the caller has taken.
public struct WebPushAckRequest: Codable, Sendable {
    public var ids: [String]
    public init(ids: [String]) { self.ids = ids }
}

public struct WebPushAckResponse: Codable, Sendable, Equatable {
    /// How many of the ids were waiting (the others were acknowledged before, or are not this subscription's).
    public var acknowledged: Int
    public init(acknowledged: Int) { self.acknowledged = acknowledged }
}
