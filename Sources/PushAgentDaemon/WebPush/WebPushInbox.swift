import Foundation
import Logging
import PushAgentCore
import PushAgentStore
import RelayWire

/// Where the relay's Web Push messages go instead of the providers: each is stored for the local subscription it
/// came through, until its owner acknowledges it, and the listeners waiting on that subscription are woken.
struct WebPushInbox: Sendable {
    let store: AgentStore
    /// The relay ids of subscriptions a message was just stored for.
    let arrivals = Broadcast<String>()
    let logger: Logger

    /// Whether `push` is a Web Push message: one the relay delivered with a subscription in its data (the relay's send
    /// API refuses every `webpush.` key, so no provider push carries one).
    static func claims(_ push: DeliveredPush) -> Bool {
        guard case .relay = push.source else { return false }
        return push.data[WebPushDataKey.subscription.rawValue] != nil
    }

    /// Stores the messages (all `claims`ed) and moves the relay cursor past them, then wakes their listeners.
    func receive(_ pushes: [DeliveredPush], now: Date) async throws {
        var arriving: [WebPushArrival] = []
        var malformedSeqs: [Int64] = []
        for push in pushes {
            let value = { (key: WebPushDataKey) in push.data[key.rawValue] }
            guard case .relay(let id, let seq) = push.source, let subscription = value(.subscription) else { continue }
            guard let body = value(.body).flatMap(LenientBase64.decode) else {
                logger.warning("Web Push message dropped: its body is missing or not base64url (a relay that is not pushrelay?)",
                               metadata: ["relay_message_id": "\(id)", "webpush_subscription": "\(subscription)"])
                malformedSeqs.append(seq)
                continue
            }
            arriving.append(WebPushArrival(relayMessageID: id, seq: seq, subscriptionID: subscription, body: body,
                                           urgency: value(.urgency) ?? "normal", topic: value(.topic), expiresAt: push.expiresAt))
        }
        let outcomes = try await store.storeWebPushArrivals(arriving, now: now)
        if let seq = malformedSeqs.max() { try await store.advanceCursor(to: seq) }
        for (arrival, outcome) in zip(arriving, outcomes) {
            report(arrival, outcome)
            if outcome == .stored { await arrivals.publish(arrival.subscriptionID) }
        }
    }

    private func report(_ arrival: WebPushArrival, _ outcome: WebPushArrival.Outcome) {
        let metadata: Logger.Metadata = ["relay_message_id": "\(arrival.relayMessageID)",
                                         "webpush_subscription": "\(arrival.subscriptionID)"]
        switch outcome {
        case .stored:
            logger.info("Web Push message stored (\(arrival.body.count) bytes, urgency \(arrival.urgency))", metadata: metadata)
        case .duplicate:
            logger.info("Web Push message already stored; acknowledged again", metadata: metadata)
        case .unknownSubscription:
            logger.notice("Web Push message dropped: no local subscription is relay subscription \(arrival.subscriptionID) (removed with pushctl webpush remove?)",
                          metadata: metadata)
        }
    }
}
