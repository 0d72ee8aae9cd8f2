import ControlWire
import Foundation
import Logging
import PushAgentCore
import PushAgentStore
import Synchronization

/// The daemon's side of the push bombing defences, after the store decided (AgentStore+Fatigue): sends the denies of
/// pushes denied unseen, replaces pending look-alikes of a new approval, and raises one alarm per burst.
struct PushFatigueDefence: Sendable {
    let store: AgentStore
    let approvals: ApprovalService
    let config: LiveConfig
    let events: EventBus
    let logger: Logger
    let bursts = BurstTracker()

    var budget: PushBudget { config.current.pushBudget }

    func handle(_ outcome: MessageOutcome, now: Date) async throws {
        switch outcome {
        case .autoDenied(let stored, let rejection):
            approvals.sendAutomaticDenial(stored)
            if rejection.reason == .rateLimited { await alarmIfNewBurst(stored.approval, now: now) }
        case .created(let approval) where config.current.collapseSimilarPending:
            for older in try await store.supersedeSimilar(to: approval) {
                logger.info("approval \(older.approval.id) replaced by \(approval.id), a newer request that looks the same; denying it",
                            metadata: ["approval_id": "\(older.approval.id)", "account_id": "\(approval.accountId)"])
                await events.publish(.approvalUpdated(older.approval))
                approvals.sendAutomaticDenial(older)
            }
        default:
            break
        }
    }

    private func alarmIfNewBurst(_ approval: Approval, now: Date) async {
        let budget = self.budget
        guard bursts.isNewBurst(account: approval.accountId, at: now, quietAfter: budget.window) else { return }
        logger.warning("push bombing? \(approval.provider.displayName) account \(approval.accountId) got more than \(budget.limit) pushes within \(Int(budget.window)) s; the rest are denied unseen until it calms down", metadata: [
            "message_id": "\(LogMessageID.pushBombing)", "account_id": "\(approval.accountId)",
            "provider": "\(approval.provider.rawValue)", "push_limit": "\(budget.limit)",
            "window_seconds": "\(Int(budget.window))"])
        await events.publish(.approvalBombing(approval, BombingAlert(approval, over: budget)))
    }
}

/// When each account last had a push over its budget: a burst is over once a window passes without one.
final class BurstTracker: Sendable {
    private let lastLimited = Mutex<[String: Date]>([:])

    func isNewBurst(account: String, at now: Date, quietAfter window: TimeInterval) -> Bool {
        lastLimited.withLock { last in
            defer { last[account] = now }
            guard let previous = last[account] else { return true }
            return now.timeIntervalSince(previous) > window
        }
    }
}
