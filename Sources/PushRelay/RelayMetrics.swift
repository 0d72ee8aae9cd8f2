import Synchronization

/// Hand-kept counters, rendered in the Prometheus text format. Counters start at zero with each process,
/// which Prometheus handles as a counter reset.
final class RelayMetrics: Sendable {
    enum Counter: CaseIterable {
        case sent, delivered, expired, collapsed, accessTokensIssued, unavailable, outcomeUnknown, memoryTrims

        var name: String {
            switch self {
            case .sent: "pushrelay_messages_sent_total"
            case .delivered: "pushrelay_messages_delivered_total"
            case .expired: "pushrelay_messages_expired_total"
            case .collapsed: "pushrelay_messages_collapsed_total"
            case .accessTokensIssued: "pushrelay_access_tokens_issued_total"
            case .unavailable: "pushrelay_requests_unavailable_total"
            case .outcomeUnknown: "pushrelay_sends_outcome_unknown_total"
            case .memoryTrims: "pushrelay_memory_trims_total"
            }
        }

        var help: String {
            switch self {
            case .sent: "Messages accepted from senders."
            case .delivered: "Messages acknowledged by devices."
            case .expired: "Messages dropped undelivered because their TTL passed."
            case .collapsed: "Undelivered messages replaced by a newer one with the same collapse key."
            case .accessTokensIssued: "Access tokens issued to service accounts by POST /token."
            case .unavailable: "Requests answered 503 because the database did not answer in time or was unreachable; none of them was stored."
            case .outcomeUnknown: "Sends answered 500 because the database took the message but its answer was lost (deadline passed or connection died during the commit): each may or may not be stored."
            case .memoryTrims: "Times the relay gave freed memory back to the system (malloc_trim) after many connections closed."
            }
        }
    }

    private let counts = Mutex<[Counter: Int]>([:])

    func add(_ counter: Counter, _ amount: Int = 1) {
        guard amount > 0 else { return }
        counts.withLock { $0[counter, default: 0] += amount }
    }

    /// - Parameter devices: nil when the database could not count them; the gauge is left out then.
    func render(devices: Int?, pollsWaiting: Int) -> String {
        let counts = self.counts.withLock { $0 }
        let counters = Counter.allCases.map { (name: $0.name, type: "counter", help: $0.help, value: counts[$0, default: 0]) }
        let deviceGauge = devices.map { (name: "pushrelay_devices", type: "gauge", help: "Registered devices.", value: $0) }
        let gauges = [deviceGauge].compactMap { $0 } + [
            (name: "pushrelay_polls_waiting", type: "gauge", help: "Long-polls currently waiting for a message.", value: pollsWaiting),
        ]
        return (counters + gauges).map { "# HELP \($0.name) \($0.help)\n# TYPE \($0.name) \($0.type)\n\($0.name) \($0.value)\n" }.joined()
    }
}
