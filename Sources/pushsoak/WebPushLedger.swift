import Foundation
import Synchronization

/// What one POST did, as the sender can know it.
enum PostOutcome: String, Sendable, CaseIterable {
    /// 201: the relay stored it, so its app must get it exactly once (unless its TTL ran out first).
    case accepted
    /// Any other answer (429, 503, …): the relay stored nothing, so it must never arrive.
    case refused
    /// No connection (the relay was down): nothing was sent, so it must never arrive.
    case notSent = "not sent"
    /// Connected but no whole answer (the relay killed mid-request): it may arrive, at most once.
    case unconfirmed
}

/// One POST: a message is one or more of them, since a sender whose POST failed sends the message again, and each
/// POST is a body of its own (encrypted afresh) that the relay stores as a message of its own, or not.
struct WebPushAttempt: Sendable {
    let app: Int
    /// The message (one notification) it carries; its `attempt`th POST.
    let message: Int
    let attempt: Int
    /// Its place among its app's POSTs with the long TTL, which each app's sender makes one at a time (the next
    /// starts only after this one's answer or failure): the order the relay stores them in.
    let laneOrder: Int?
    let ttl: Int
    /// Sent with a TTL meant to run out while pushagentd is down: must never reach the app.
    let expiring: Bool
    let plaintext: Data
    /// The key the connector's log finds it by: the body, standard base64 (its `message_b64`).
    let bodyKey: String
    let outcome: PostOutcome
    let status: Int?
    /// The relay's message id from `Location` (201 only): the id the app's `Message` carries.
    let messageID: String?
    let failure: String?
}

/// Every POST of a Web Push soak, and the messages that never got a 201 before sending stopped.
final class WebPushLedger: Sendable {
    private let attempts = Mutex<[WebPushAttempt]>([])
    private let abandoned = Mutex<[Int]>([])

    func record(_ attempt: WebPushAttempt) { attempts.withLock { $0.append(attempt) } }
    func recordAbandoned(message: Int) { abandoned.withLock { $0.append(message) } }

    var all: [WebPushAttempt] { attempts.withLock { $0 } }
    var abandonedMessages: [Int] { abandoned.withLock { $0 } }

    func count(_ outcome: PostOutcome, expiring: Bool? = nil) -> Int {
        attempts.withLock { $0.count { $0.outcome == outcome && (expiring == nil || $0.expiring == expiring) } }
    }
}
