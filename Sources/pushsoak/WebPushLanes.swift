import Foundation
import Synchronization

/// The application servers of a Web Push soak: messages with the long TTL, at a steady rate over all apps, each
/// app's sent by a sender of its own (a thread: blocking sockets), one POST at a time, as a server keeps one
/// user's notifications in order. A POST that fails is sent again, as a new body (encrypted afresh), until one gets
/// a 201: after no connection (relay down) or no whole answer at once, after a 429 or 503 its Retry-After later.
/// Since an app's POSTs never overlap, the relay stores them in the order they were made.
final class WebPushLanes: Sendable {
    struct Target: Sendable {
        let port: Int
        /// The relay's origin: VAPID's `aud`.
        let origin: String
        let vapid: SoakVAPIDKey
    }

    let apps: [SoakApp]
    let target: Target
    let ledger: WebPushLedger
    let total: Int
    let rate: Double
    static let ttl = 300
    /// The app each message goes to, drawn from the run's seed.
    private let assignment: [Int]
    private let done = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)

    init(apps: [SoakApp], target: Target, ledger: WebPushLedger, total: Int, rate: Double, random: SoakRandom) {
        self.apps = apps
        self.target = target
        self.ledger = ledger
        self.total = total
        self.rate = rate
        assignment = (0..<total).map { _ in random.integer(0..<apps.count) }
    }

    /// Messages accepted or given up so far.
    var finished: Int { done.load(ordering: .relaxed) }
    /// Seconds of sending still ahead at the planned rate.
    var secondsLeft: Double { Double(total - finished) / rate }

    /// Sends until every message is accepted or `deadline` passes (then the rest count as never accepted).
    func run(until deadline: ContinuousClock.Instant) async {
        let start = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            for app in apps {
                let messages = assignment.indices.filter { assignment[$0] == app.index }
                group.addTask { [self] in
                    await onThread { [self] in lane(app, messages: messages, start: start, deadline: deadline) }
                }
            }
        }
    }

    private func lane(_ app: SoakApp, messages: [Int], start: ContinuousClock.Instant, deadline: ContinuousClock.Instant) {
        var order = 0
        for message in messages {
            let due = start + .milliseconds(Int(Double(message) * 1000 / rate))
            sleep(until: due)
            var attempt = 1
            while true {
                guard ContinuousClock.now < deadline else {
                    ledger.recordAbandoned(message: message)
                    break
                }
                let (accepted, wait) = post(app, message: message, attempt: attempt, order: order)
                order += 1
                if accepted { break }
                guard let wait else {
                    ledger.recordAbandoned(message: message)
                    break
                }
                sleep(until: ContinuousClock.now + wait)
                attempt += 1
            }
            done.add(1, ordering: .relaxed)
        }
    }

    /// One POST, recorded; unless it was accepted, how long to wait before sending the message again (nil: a
    /// refusal no resend can change, such as a 404 or 413, which the soak never causes on purpose).
    private func post(_ app: SoakApp, message: Int, attempt: Int, order: Int) -> (accepted: Bool, retryIn: Duration?) {
        let result = WebPushSend.post(app: app, target: target, ttl: Self.ttl, message: message, attempt: attempt,
                                      laneOrder: order, expiring: false, ledger: ledger)
        switch result {
        case .answered(201, _, _, _): return (true, nil)
        case .answered(let status, _, let retryAfter, _) where status == 429 || status >= 500:
            return (false, .milliseconds(Int(min(max(Double(retryAfter ?? 1), 0.5), 10) * 1000)))
        case .answered: return (false, nil)
        case .notSent, .unconfirmed: return (false, .milliseconds(250))
        }
    }

    private func sleep(until instant: ContinuousClock.Instant) {
        let left = ContinuousClock.now.duration(to: instant)
        if left > .zero { Thread.sleep(forTimeInterval: left.seconds) }
    }
}

/// One Web Push message encrypted afresh, posted and recorded in the ledger.
enum WebPushSend {
    static func post(app: SoakApp, target: WebPushLanes.Target, ttl: Int, message: Int, attempt: Int, laneOrder: Int?,
                     expiring: Bool, ledger: WebPushLedger) -> WebPushPost.Result {
        // Unique random bytes after a readable prefix; the relay never decrypts, the soak does once the app got it.
        var generator = SystemRandomNumberGenerator()
        let noise = (0..<Int.random(in: 16...2048, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let plaintext = Data("pushsoak app \(app.index) message \(message) attempt \(attempt) ttl \(ttl)\n".utf8) + noise
        var result: WebPushPost.Result
        var body = Data()
        do {
            body = try app.encrypt(plaintext)
            let authorization = app.restricted ? try target.vapid.authorization(audience: target.origin) : nil
            result = WebPushPost(port: target.port, path: app.path, ttl: ttl, body: body, authorization: authorization).send()
        } catch {
            // Encryption or signing failed in the soak itself: nothing was sent.
            result = .notSent("the soak could not encrypt or sign: \(error)")
        }
        let (outcome, status, messageID, failure): (PostOutcome, Int?, String?, String?) = switch result {
        case .answered(201, let id, _, _): (.accepted, 201, id, nil)
        case .answered(let status, _, _, let text): (.refused, status, nil, "\(status) \(text)")
        case .notSent(let why): (.notSent, nil, nil, why)
        case .unconfirmed(let why): (.unconfirmed, nil, nil, why)
        }
        ledger.record(WebPushAttempt(app: app.index, message: message, attempt: attempt, laneOrder: laneOrder, ttl: ttl,
                                     expiring: expiring, plaintext: plaintext, bodyKey: body.base64EncodedString(),
                                     outcome: outcome, status: status, messageID: messageID, failure: failure))
        return result
    }
}
