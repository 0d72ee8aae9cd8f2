import ControlWire
import Foundation
import Logging
import PushAgentCore
import PushAgentStore

/// Local step-ups (docs/stepup.md): a program on this machine asks the user to confirm an MFA challenge; once an
/// operator approves it (`pushctl approve`, like any approval), the program collects the answer: an account's TOTP
/// code or a receipt signed by the device key.
struct StepUpService: Sendable {
    let store: AgentStore
    let events: EventBus
    let logger: Logger

    static let defaultTTLSeconds = 120
    static let ttlSeconds = 10...600
    /// How long after the approval the answer is handed out (and the receipt's lifetime).
    static let answerLifetime: TimeInterval = 120
    /// Step-ups one uid may have waiting at once, so no program can flood the user's list.
    static let maximumPendingPerUid = 5

    /// Asking is open to any peer that can open the socket: it is a request for the user's approval, not an
    /// approval. The caller's identity comes from the kernel (SO_PEERCRED), never from the request.
    func create(_ request: StepUpRequest, peer: Peer, now: Date = Date()) async throws -> StepUp {
        let ttl = request.ttlSeconds ?? Self.defaultTTLSeconds
        guard Self.ttlSeconds.contains(ttl) else {
            throw ServiceError(.invalidArgument, "ttl_seconds must be from \(Self.ttlSeconds.lowerBound) to \(Self.ttlSeconds.upperBound), not \(ttl)")
        }
        let caller = StepUpCaller(peer)
        let details = StepUpDetails(
            caller: caller, answer: request.answer, accountId: try await accountId(for: request),
            businessNumber: try StepUpText.checked(request.businessNumber, field: "business_number", limit: 128),
            reason: try StepUpText.checked(request.reason, field: "reason", limit: 300),
            audience: try StepUpText.checked(request.audience, field: "audience", limit: 300))
        let draft = ApprovalDraft(
            provider: .local, accountId: details.accountId ?? "", kind: .stepup, numbers: nil,
            title: "Step-up MFA for \(caller.program)", message: Self.message(details),
            context: ApprovalContext(app: caller.program, user: caller.userDescription,
                                     raw: try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(details))),
            requestedAt: now, expiresAt: now.addingTimeInterval(TimeInterval(ttl)), dedupeKey: UUID().uuidString,
            answerContext: try JSONEncoder().encode(details))
        let approval = try await store.addLocalApproval(draft) { pending in
            let waiting = pending.filter { (try? Self.details(of: $0))?.caller.uid == caller.uid }.count
            guard waiting < Self.maximumPendingPerUid else {
                throw ServiceError(.conflict, "uid \(caller.uid) already has \(waiting) step-ups waiting for an answer; answer them (pushctl list) or let them expire, then ask again")
            }
        }
        try await store.audit(event: "stepup_request", peer: peer, subject: approval.id,
                              detail: "answer=\(details.answer.rawValue)" + (details.accountId.map { " account=\($0)" } ?? ""))
        logger.notice("step-up \(approval.id) asked by \(caller.program) (pid \(caller.pid), uid \(caller.uid))", metadata: [
            "message_id": "\(LogMessageID.approvalCreated)", "approval_id": "\(approval.id)",
            "provider": "\(Provider.local.rawValue)", "peer_uid": "\(caller.uid)", "peer_pid": "\(caller.pid)"])
        await events.publish(.approvalCreated(approval))
        return StepUp(approval: approval, details: details)
    }

    /// The public half of the device key, for servers that verify receipts.
    func keySet() async throws -> JWKSet { JWKSet(keys: [try await store.deviceSigningKey().publicJWK]) }

    static func details(of stored: StoredApproval) throws -> StepUpDetails {
        try JSONDecoder().decode(StepUpDetails.self, from: stored.answerContext)
    }

    /// The TOTP answer needs an account that has a TOTP secret; a receipt names none.
    private func accountId(for request: StepUpRequest) async throws -> String? {
        switch request.answer {
        case .totp:
            guard let name = request.account, !name.isEmpty else {
                throw ServiceError(.invalidArgument, "answer \"totp\" needs \"account\": the account whose code the server expects (ids in `pushctl accounts`)")
            }
            let stored = try await store.account(matching: name)
            guard stored.totp != nil else {
                throw ServiceError(.invalidArgument, "account \(stored.account.id) has no TOTP secret (its enrollment URI carried none), so it cannot answer a code challenge")
            }
            return stored.account.id
        case .receipt:
            guard request.account == nil else {
                throw ServiceError(.invalidArgument, "\"account\" goes with answer \"totp\" only; a receipt is signed by the device key")
            }
            return nil
        }
    }

    /// What `pushctl list` shows: who asks, for which server, why.
    static func message(_ details: StepUpDetails) -> String {
        let caller = details.caller
        var text = "\(caller.program) (pid \(caller.pid), uid \(caller.uid)) asks you to confirm"
        text += details.audience.map { " a request to \($0)" } ?? " a step-up"
        if let reason = details.reason { text += ": \(reason)" }
        if let number = details.businessNumber { text += " [business number \(number)]" }
        return text
    }
}
