import ControlWire
import Foundation
import Hummingbird
import PushAgentCore
import PushAgentStore

/// `/v1/approvals` (list, show, approve, deny, deny all) and `/v1/history`, what became of them and of rejected pushes.
struct ApprovalRoutes: ControlRouteCollection {
    let store: AgentStore
    let approvals: ApprovalService
    let writers: Writers

    func addRoutes(to v1: RouterGroup<PeerContext>) {
        v1.writersPost("approvals/deny", DenyAllRequest.self, writers: writers) { body, peer, _ in
            ApprovalsResponse(approvals: try await approvals.denyAll(account: body.account, reason: body.reason, peer: peer))
        }
        v1.get("approvals") { request, _ in
            let state = try request.uri.queryParameters.get("state").map { raw in
                guard let state = ApprovalState(rawValue: String(raw)) else {
                    throw ControlError(.invalidArgument, "unknown state '\(raw)' (one of \(ApprovalState.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                return state
            }
            return try JSONResponse.ok(ApprovalsResponse(approvals: try await store.approvals(state: state)))
        }
        v1.get("approvals/:id") { _, context in
            try JSONResponse.ok(try await store.approval(matching: try context.parameters.require("id")).approval)
        }
        v1.writersPost("approvals/:id/approve", ApproveRequest.self, writers: writers) { body, peer, context in
            try await approvals.answer(try context.parameters.require("id"), decision: .approve(number: body.number),
                                       userVerified: body.userVerified ?? false, password: body.password, peer: peer)
        }
        v1.writersPost("approvals/:id/deny", DenyRequest.self, writers: writers) { body, peer, context in
            try await approvals.answer(try context.parameters.require("id"), decision: .deny(reason: body.reason),
                                       userVerified: false, peer: peer)
        }
        v1.get("history") { request, _ in
            let limit = request.uri.queryParameters.get("limit").flatMap { Int($0) } ?? 50
            guard (1...1000).contains(limit) else { throw ControlError(.invalidArgument, "limit must be from 1 to 1000") }
            return try JSONResponse.ok(HistoryResponse(entries: try await history(limit: limit)))
        }
    }

    private func history(limit: Int) async throws -> [HistoryEntry] {
        let resolved = try await store.resolvedApprovals(limit: limit).map {
            HistoryEntry($0)
        }
        let rejected = try await store.auditEntries(event: "push_rejected", limit: limit).compactMap { entry -> HistoryEntry? in
            guard let data = entry.detail?.data(using: .utf8),
                  let detail = try? JSONDecoder().decode(RejectionDetail.self, from: data) else { return nil }
            return HistoryEntry(RejectedPush(reason: detail.reason, message: detail.message, provider: detail.provider,
                                             relayMessageId: entry.subject), at: entry.at)
        }
        return Array((resolved + rejected).sorted { $0.at > $1.at }.prefix(limit))
    }
}
