import Foundation

/// The figures of a Web Push run, one fact a line; the `kills`, `lost` and `duplicated` lines read as the other
/// modes' do, and `expired delivered` beside them.
struct WebPushReport {
    let apps: [SoakApp]
    let ledger: WebPushLedger
    let windows: [ExpiryWindows.Window]
    let longMessages: Int
    let proxy: FaultProxy
    let kills: KillCounter
    let verdict: WebPushVerdict
    /// What pushagentd counted as received over all the apps' subscriptions.
    let daemonReceived: Int?
    let sendingTime: Duration

    func print() {
        let attempts = ledger.all
        let long = attempts.filter { !$0.expiring }
        let expiring = attempts.filter(\.expiring)
        let v1 = apps.count { $0.version == 1 }
        let restricted = apps.count(where: \.restricted)
        say("Web Push messages \(longMessages + expiring.count) to \(apps.count) UnifiedPush apps (\(restricted) Connector2 with "
            + "VAPID, \(apps.count - restricted - v1) Connector2 without, \(v1) Connector1) in "
            + String(format: "%.1f", sendingTime.seconds) + " s; bodies aes128gcm-encrypted to each app's keys")
        say("  TTL \(WebPushLanes.ttl) s: \(longMessages) messages in \(long.count) POSTs: accepted (201) \(count(long, .accepted)), "
            + "refused \(count(long, .refused))\(statuses(long)), not sent (no connection: the relay was down) "
            + "\(count(long, .notSent)), unconfirmed \(count(long, .unconfirmed)) (reached their app: \(verdict.unconfirmedDelivered)); "
            + "each failed POST sent again as a new message")
        let held = windows.map(\.held.seconds)
        let heldRange = switch (held.min(), held.max()) {
        case let (low?, high?) where String(format: "%.1f", low) != String(format: "%.1f", high): String(format: "%.1f–%.1f", low, high)
        case let (low?, _): String(format: "%.1f", low)
        default: "-"
        }
        say("  TTL 1–2 s, posted while pushagentd lay killed: \(expiring.count) messages in \(windows.count) "
            + "outage\(windows.count == 1 ? "" : "s") (pushagentd held down \(heldRange) s from the first POST): accepted "
            + "\(verdict.expiredAccepted), other \(expiring.count - verdict.expiredAccepted)\(statuses(expiring))")
        let failures = attempts.compactMap(\.failure).map { SoakVerdict.reasonClass($0) }
        if !failures.isEmpty {
            say("  send failures:")
            for (text, count) in Dictionary(grouping: failures, by: { $0 }).mapValues(\.count).sorted(by: { $0.value > $1.value }).prefix(6) {
                say("    \(count)× \(text)")
            }
        }
        let targets: [ProcessKiller.Target] = [.daemon, .relay]
        say("kills \(targets.map { kills[$0] }.reduce(0, +)) (" + targets.map { "\($0.rawValue) \(kills[$0])" }.joined(separator: ", ") + ")")
        let crashed = targets.filter { kills.crashes($0) > 0 }
        if !crashed.isEmpty {
            say("  exits nobody caused: " + crashed.map { "\($0.rawValue) \(kills.crashes($0))" }.joined(separator: ", "))
        }
        let faults = proxy.faultsInjected
        say("faults injected \(faults.values.reduce(0, +)) of \(proxy.requestsSeen) daemon→relay requests ("
            + Fault.allCases.map { "\($0.rawValue) \(faults[$0] ?? 0)" }.joined(separator: ", ")
            + "); 502 while the relay was down \(proxy.relayDownCount)")
        say("pushagentd received \(daemonReceived.map(String.init) ?? "?") Web Push messages; the apps got \(verdict.messageCalls) Message calls")
        say("delivered \(verdict.delivered) of \(count(long, .accepted)) accepted TTL-\(WebPushLanes.ttl) s messages to their app, "
            + "decrypted to what was sent, with the relay's message id, in the order each app's sender posted them")
        printList("misdelivered", verdict.misdelivered)
        printList("undecryptable or altered", verdict.undecryptable)
        printList("wrong message id", verdict.wrongID)
        printList("refused or never sent, yet delivered", verdict.refusedDelivered)
        printList("strangers", Array(repeating: "a body nobody posted", count: verdict.strangers))
        printList("refused for good", verdict.refusedForGood)
        if !verdict.abandoned.isEmpty {
            say("never accepted (--duration ended first, or refused for good) \(verdict.abandoned.count)\(examples(verdict.abandoned.map { "message \($0)" }))")
        }
        if verdict.extraEndpoints > 0 || verdict.unregistered > 0 {
            say("registrations: \(verdict.extraEndpoints) NewEndpoint calls beyond the first of each app, \(verdict.unregistered) Unregistered")
        }
        say("out of order \(verdict.outOfOrder.count)\(examples(verdict.outOfOrder))")
        say("expired delivered \(verdict.expiredDelivered.count) (of \(verdict.expiredAccepted) accepted with a TTL that ran out "
            + "while pushagentd was down)\(examples(verdict.expiredDelivered))")
        say("lost \(verdict.lost.count)\(examples(verdict.lost))")
        let duplicates = verdict.duplicated.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }
        say("duplicated \(verdict.duplicated.count)\(examples(duplicates))")
    }

    private func count(_ attempts: [WebPushAttempt], _ outcome: PostOutcome) -> Int { attempts.count { $0.outcome == outcome } }

    /// The refusals' statuses, e.g. " (429 ×3)".
    private func statuses(_ attempts: [WebPushAttempt]) -> String {
        let refused = Dictionary(grouping: attempts.filter { $0.outcome == .refused }.compactMap(\.status), by: { $0 }).mapValues(\.count)
        return refused.isEmpty ? "" : " (" + refused.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ") + ")"
    }

    private func printList(_ title: String, _ items: [String]) {
        guard !items.isEmpty else { return }
        say("\(title) \(items.count)\(examples(items))")
    }

    private func examples(_ items: [String]) -> String {
        items.isEmpty ? "" : " (e.g. \(items.sorted().prefix(10).joined(separator: ", ")))"
    }
}
