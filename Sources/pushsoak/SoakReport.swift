import Foundation

/// The figures of a run, one fact a line; the `lost`, `duplicated` and `kills` lines are what scripts read.
struct SoakReport {
    let ledger: PushLedger
    /// `relay` or `fcm`: who accepted the pushes.
    let transport: String
    let proxy: FaultProxy
    let kills: KillCounter
    let verdict: SoakVerdict
    let rejections: [String: Int]
    let approvalCount: Int
    let approveRefusals: [String: String]
    let sendingTime: Duration

    func print() {
        let pushes = ledger.all
        let byDialect = Dialect.allCases.map { dialect in "\(dialect.rawValue) \(pushes.count { $0.dialect == dialect })" }
        say("pushes sent \(pushes.count) (\(byDialect.joined(separator: ", "))) in \(String(format: "%.1f", sendingTime.seconds)) s")
        say("  accepted by the \(transport == "fcm" ? "FCM emulator" : "relay") \(ledger.count(.accepted)), refused \(ledger.count(.refused)) "
            + "(reached the daemon anyway: \(verdict.deliveredRefused)), unconfirmed \(ledger.count(.unconfirmed)) "
            + "(reached the daemon: \(verdict.deliveredUnconfirmed))")
        printExamples("  send failures", pushes.compactMap(\.failure).map { SoakVerdict.reasonClass($0) })
        let targets = ProcessKiller.Target.allCases
        say("kills \(targets.map { kills[$0] }.reduce(0, +)) ("
            + targets.filter { $0 == .daemon || kills[$0] > 0 }.map { "\($0.rawValue) \(kills[$0])" }.joined(separator: ", ") + ")")
        let crashed = targets.filter { kills.crashes($0) > 0 }
        if !crashed.isEmpty {
            say("  exits nobody caused: " + crashed.map { "\($0.rawValue) \(kills.crashes($0))" }.joined(separator: ", "))
        }
        let faults = proxy.faultsInjected
        let faultList = Fault.allCases.map { "\($0.rawValue) \(faults[$0] ?? 0)" }.joined(separator: ", ")
        say("faults injected \(faults.values.reduce(0, +)) of \(proxy.requestsSeen) daemon→relay requests "
            + "(\(faultList)); 502 while the relay was down \(proxy.relayDownCount)")
        say("approvals in the daemon \(approvalCount) (accepted pushes \(ledger.count(.accepted)), "
            + "others that arrived \(verdict.deliveredRefused + verdict.deliveredUnconfirmed), strangers \(verdict.strangers))")
        if !rejections.isEmpty {
            say("pushes the daemon rejected (history): "
                + rejections.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        }
        let failedAnswers = verdict.answersFailed.values.reduce(0, +)
        say("answers: \(verdict.answersDelivered) approvals reached the provider once, \(failedAnswers) failed with a reason, "
            + "\(verdict.answersLost.count) lost, \(verdict.answersDuplicated.count + verdict.answersUnasked.count) duplicated or unasked; "
            + "\(verdict.answersResent) sent again after a kill (the provider refused the repeat)")
        for (reason, count) in verdict.answersFailed.sorted(by: { $0.value > $1.value }) {
            say("  failed \(count)×: \(reason.isEmpty ? "(no reason given)" : reason)")
        }
        printExamples("  approve calls refused", Array(approveRefusals.values).map { SoakVerdict.reasonClass($0) })
        if !verdict.neverAnswered.isEmpty {
            say("  sampled approvals never answered: \(verdict.neverAnswered.count) (\(verdict.neverAnswered.prefix(5).joined(separator: ", ")))")
        }
        printList("answers lost", verdict.answersLost)
        printList("answers duplicated", verdict.answersDuplicated)
        printList("answers nobody asked for", verdict.answersUnasked)
        say("lost \(verdict.lost.count)\(examples(verdict.lost))")
        let duplicates = verdict.duplicated.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }
        say("duplicated \(verdict.duplicated.count)\(examples(duplicates))")
    }

    private func printList(_ title: String, _ markers: [String]) {
        guard !markers.isEmpty else { return }
        say("\(title) \(markers.count)\(examples(markers))")
    }

    private func examples(_ items: [String]) -> String {
        items.isEmpty ? "" : " (e.g. \(items.sorted().prefix(10).joined(separator: ", ")))"
    }

    /// Distinct messages with their counts, most frequent first.
    private func printExamples(_ title: String, _ messages: [String]) {
        guard !messages.isEmpty else { return }
        say(title + ":")
        for (message, count) in Dictionary(grouping: messages, by: { $0 }).mapValues(\.count).sorted(by: { $0.value > $1.value }).prefix(6) {
            say("    \(count)× \(message)")
        }
    }
}
