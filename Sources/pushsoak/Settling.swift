import ClusterHarness
import ControlWire
import Foundation
import PushAgentCore
import PushSim

/// The calm after the storm: no more kills or faults; waits until the daemon has everything the relay still holds
/// and every sampled approval is answered, then collects what the daemon and the provider recorded.
struct Settling {
    let cluster: Cluster
    let ledger: PushLedger
    let approver: Approver
    let killer: ProcessKiller
    /// How long the approval count may stand still before the soak stops waiting for the rest.
    var quietLimit: Duration = .seconds(30)
    var limit: Duration = .seconds(240)

    struct Outcome {
        var approvals: [Approval]
        var answers: [ProviderAnswer]
        /// Pushes the daemon refused (history), by reason.
        var rejections: [String: Int]
    }

    func run() async throws -> Outcome {
        let deadline = ContinuousClock.now + limit
        try await killer.restartCrashed()
        try await awaitDeliveries(until: deadline)
        try await awaitAnswers(until: deadline)
        try await killer.restartCrashed()
        let approvals = try await cluster.client.approvals()
        let history = try await cluster.client.history(limit: 1000)
        let rejections = Dictionary(grouping: history.compactMap(\.rejectedPush), by: \.reason.rawValue).mapValues(\.count)
        return Outcome(approvals: approvals, answers: try await providerAnswers(), rejections: rejections)
    }

    /// Until every accepted push has an approval, or the count stands still for `quietLimit`.
    private func awaitDeliveries(until deadline: ContinuousClock.Instant) async throws {
        let expected = Set(ledger.all.filter { $0.outcome == .accepted }.map(\.marker))
        var seen = -1
        var lastProgress = ContinuousClock.now
        while ContinuousClock.now < deadline, ContinuousClock.now - lastProgress < quietLimit {
            if let approvals = try? await cluster.client.approvals() {
                let present = expected.intersection(approvals.map(\.soakMarker)).count
                if present == expected.count { return }
                if present > seen { (seen, lastProgress) = (present, ContinuousClock.now) }
            }
            try await Task.sleep(for: .seconds(1))
        }
        say("pushsoak: stopped waiting with \(max(seen, 0)) of \(expected.count) accepted pushes in the daemon")
    }

    /// Approves what the storm left unapproved, then waits until no answer is in flight.
    private func awaitAnswers(until deadline: ContinuousClock.Instant) async throws {
        while ContinuousClock.now < deadline, await approver.approvePending() != 0 {
            try await Task.sleep(for: .milliseconds(500))
        }
        while ContinuousClock.now < deadline {
            let inFlight = (try? await cluster.client.approvals().count { $0.state == .approving || $0.state == .denying }) ?? -1
            if inFlight == 0 { return }
            try await Task.sleep(for: .seconds(1))
        }
        say("pushsoak: stopped waiting with answers still in flight")
    }

    /// Every answer pushsim's AM and PlusAuth endpoints received.
    private func providerAnswers() async throws -> [ProviderAnswer] {
        let sim = SimAdminClient(baseURL: cluster.simURL)
        let forgeRock = try await sim.answers().map {
            ProviderAnswer(providerId: $0.messageId, accepted: $0.outcome == .approved && $0.error == nil && $0.verified)
        }
        let plusAuth = try await sim.plusAuthAnswers().map {
            ProviderAnswer(providerId: $0.pushId ?? "", accepted: $0.outcome == .approved && $0.error == nil && $0.verified)
        }
        return forgeRock + plusAuth
    }
}
