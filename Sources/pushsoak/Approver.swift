import ClusterHarness
import ControlClient
import ControlWire
import Foundation
import PushAgentCore
import Synchronization

/// Approves the sampled pushes' approvals through the control API as they appear, whatever is being killed.
final class Approver: Sendable {
    private let client: ControlClient
    private let ledger: PushLedger
    /// Markers whose approve call the daemon took (or answered `conflict`: an earlier call had landed).
    private let answered = Mutex<Set<String>>([])
    /// Approve calls the daemon refused for another reason than a conflict, with its message.
    private let refusals = Mutex<[String: String]>([:])

    init(client: ControlClient, ledger: PushLedger) {
        self.client = client
        self.ledger = ledger
    }

    var answeredMarkers: Set<String> { answered.withLock { $0 } }
    var refusedApprovals: [String: String] { refusals.withLock { $0 } }

    /// A round every two seconds until its task is cancelled (listing every pending approval is not free).
    func run() async {
        while !Task.isCancelled {
            await approvePending()
            try? await Task.sleep(for: .seconds(2))
        }
    }

    /// One round: every pending approval of a sampled push not yet answered. Returns how many are still to do.
    @discardableResult
    func approvePending() async -> Int {
        guard let pending = try? await client.approvals(state: .pending) else { return -1 }
        var remaining = 0
        for approval in pending {
            guard let push = ledger.push(marker: approval.soakMarker), push.sampled, push.outcome == .accepted,
                  !answered.withLock({ $0.contains(push.marker) }), refusals.withLock({ $0[push.marker] == nil })
            else { continue }
            remaining += 1
            do {
                _ = try await client.approve(approval.id, number: approval.kind == .number ? push.correctNumber : nil,
                                             userVerified: push.needsUserVerification ? true : nil)
                answered.withLock { _ = $0.insert(push.marker) }
                remaining -= 1
            } catch ControlClientError.api(_, let error) where error.code == .conflict {
                answered.withLock { _ = $0.insert(push.marker) }
                remaining -= 1
            } catch ControlClientError.api(_, let error) {
                refusals.withLock { $0[push.marker] = error.message }
                remaining -= 1
            } catch {
                // Unreachable: the daemon was killed mid-call. The next round finds the approval pending again,
                // or moved on (the call had landed).
                return remaining
            }
        }
        return remaining
    }
}

extension Approval {
    /// The soak's marker: ForgeRock carries it as the push's message, PlusAuth as the application.
    var soakMarker: String {
        provider == .plusauth ? (context.app ?? "") : message
    }
}
