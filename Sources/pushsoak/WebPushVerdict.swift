import ClusterHarness
import Foundation

/// The Web Push soak's accounting, from the ledger of POSTs and the `Message` calls the apps' connector logged:
/// every accepted long-TTL message reached its app exactly once, byte for byte, with the relay's id for it, in the
/// order its app's sender posted; nothing with an expired TTL, nothing refused or never sent, nothing unknown.
struct WebPushVerdict {
    /// Accepted long-TTL POSTs that reached their app once.
    var delivered = 0
    /// Accepted long-TTL POSTs that never reached their app ("app 3 message 17 attempt 1").
    var lost: [String] = []
    /// POSTs whose body reached an app more than once, and how often.
    var duplicated: [String: Int] = [:]
    /// Expiring POSTs that reached an app (their TTL ran out while pushagentd was down: they must not).
    var expiredDelivered: [String] = []
    /// Accepted expiring POSTs (the relay stored them; they must expire there).
    var expiredAccepted = 0
    /// Refused or never-sent POSTs that reached an app.
    var refusedDelivered: [String] = []
    /// Unconfirmed POSTs (no whole answer) that reached their app (once): the relay had stored them.
    var unconfirmedDelivered = 0
    /// Delivered to another app than the one posted to, or under another token.
    var misdelivered: [String] = []
    /// Delivered bodies that do not decrypt, with the app's keys, to what was sent.
    var undecryptable: [String] = []
    /// A `Message` id other than the relay's `Location` for that POST.
    var wrongID: [String] = []
    /// Pairs of an app's messages that arrived in another order than posted.
    var outOfOrder: [String] = []
    /// `Message` calls whose body the soak never posted.
    var strangers = 0
    /// POSTs refused with a status no resend changes (not 429 or 5xx): the soak never asks for one (a 404 or 410
    /// would be an endpoint the kills lost).
    var refusedForGood: [String] = []
    /// Messages that never got a 201: --duration ended first (no POST of them is owed; not a failure by itself), or
    /// a POST was refused for good (above).
    var abandoned: [Int] = []
    var messageCalls = 0
    /// `NewEndpoint` calls beyond one per app, and `Unregistered` calls (a registration the kills lost).
    var extraEndpoints = 0
    var unregistered = 0

    var failed: Bool {
        !lost.isEmpty || !duplicated.isEmpty || !expiredDelivered.isEmpty || !refusedDelivered.isEmpty || !misdelivered.isEmpty
            || !undecryptable.isEmpty || !wrongID.isEmpty || !outOfOrder.isEmpty || strangers > 0 || !refusedForGood.isEmpty
            || unregistered > 0
    }

    init(attempts: [WebPushAttempt], abandoned: [Int], calls: [UnifiedPushConnector.LoggedCall], apps: [SoakApp]) {
        self.abandoned = abandoned
        let messages = calls.filter { $0.method == "Message" }
        messageCalls = messages.count
        extraEndpoints = max(0, calls.count { $0.method == "NewEndpoint" } - apps.count)
        unregistered = calls.count { $0.method == "Unregistered" }
        let byBody = Dictionary(attempts.map { ($0.bodyKey, $0) }) { first, _ in first }
        var received: [String: Int] = [:]
        var lastOrder: [Int: (order: Int, name: String)] = [:]
        for call in messages {
            guard let key = call.message_b64, let attempt = byBody[key] else {
                strangers += 1
                continue
            }
            received[key, default: 0] += 1
            guard received[key] == 1 else { continue }
            let name = Self.name(attempt)
            let app = apps[attempt.app]
            if call.service != app.service || call.token != app.token { misdelivered.append("\(name) reached \(call.service ?? "?")") }
            if let body = call.body, (try? app.keys.decrypt(aes128gcm: body)) != attempt.plaintext { undecryptable.append(name) }
            if let id = attempt.messageID, call.id != id { wrongID.append("\(name): \(call.id ?? "no id") for \(id)") }
            if let order = attempt.laneOrder {
                if let last = lastOrder[attempt.app], last.order > order { outOfOrder.append("\(name) after \(last.name)") }
                lastOrder[attempt.app] = (order, name)
            }
        }
        for attempt in attempts {
            let copies = received[attempt.bodyKey] ?? 0
            let name = Self.name(attempt)
            if copies > 1 { duplicated[name] = copies }
            if attempt.outcome == .refused, let status = attempt.status, status != 429, status < 500 {
                refusedForGood.append("\(name): \(attempt.failure ?? "\(status)")")
            }
            if attempt.expiring {
                if attempt.outcome == .accepted { expiredAccepted += 1 }
                if copies > 0 { expiredDelivered.append(name) }
                continue
            }
            switch (attempt.outcome, copies > 0) {
            case (.accepted, true): delivered += 1
            case (.accepted, false): lost.append(name)
            case (.refused, true), (.notSent, true): refusedDelivered.append(name)
            case (.unconfirmed, true): unconfirmedDelivered += 1
            default: break
            }
        }
    }

    static func name(_ attempt: WebPushAttempt) -> String {
        "app \(attempt.app) message \(attempt.message) attempt \(attempt.attempt)"
    }
}
