import Foundation
import Logging
import PushAgentStore
import ServiceLifecycle

/// Moves pending approvals past their expiry to `expired`, once a second.
struct ExpirySweeper: Service {
    let store: AgentStore
    let approvals: ApprovalService
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    for approval in try await store.expireDue() { await approvals.announceExpired(approval) }
                } catch {
                    logger.error("expiring approvals failed: \(error)")
                }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }
}
