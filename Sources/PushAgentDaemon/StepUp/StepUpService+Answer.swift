import ControlWire
import Foundation
import PushAgentCore
import PushAgentStore

extension StepUpService {
    /// The step-up, after waiting up to `wait` seconds for it to become final. Only the uid that asked may collect
    /// it: the answer is a credential.
    func collect(_ idOrPrefix: String, wait: Int, peer: Peer) async throws -> StepUp {
        guard (0...60).contains(wait) else { throw ServiceError(.invalidArgument, "wait must be from 0 to 60 seconds") }
        // Subscribed before reading, so an answer given in between is not missed.
        let updates = wait > 0 ? await events.subscribe() : nil
        var (stored, details) = try await askedBy(peer, idOrPrefix, toDo: "collect its answer")
        if let updates, !stored.approval.state.isFinal {
            await Self.waitForFinal(stored.approval.id, in: updates, seconds: wait)
            stored = try await store.approval(matching: stored.approval.id)
        }
        return try await answered(stored.approval, details, peer: peer, now: Date())
    }

    /// The caller gave up waiting (`DELETE /v1/stepups/{id}`): the step-up leaves the user's list, as failed. Only
    /// the uid that asked may withdraw it.
    func withdraw(_ idOrPrefix: String, peer: Peer) async throws -> StepUp {
        let (stored, details) = try await askedBy(peer, idOrPrefix, toDo: "withdraw it")
        let approval = try await store.withdrawLocalApproval(
            stored.approval.id, reason: "withdrawn by \(details.caller.program): nobody waits for the answer any more")
        try await store.audit(event: "stepup_withdraw", peer: peer, subject: approval.id, detail: nil)
        logger.notice("step-up \(approval.id) withdrawn by \(details.caller.program) (pid \(peer.pid), uid \(peer.uid))", metadata: [
            "message_id": "\(LogMessageID.stepUpWithdrawn)", "approval_id": "\(approval.id)",
            "provider": "\(Provider.local.rawValue)", "peer_uid": "\(peer.uid)", "peer_pid": "\(peer.pid)"])
        await events.publish(.approvalUpdated(approval))
        return StepUp(approval: approval, details: details)
    }

    /// The step-up `idOrPrefix` names, if `peer`'s uid asked for it: what only the asker may do is `toDo`.
    private func askedBy(_ peer: Peer, _ idOrPrefix: String, toDo: String) async throws -> (StoredApproval, StepUpDetails) {
        let stored = try await store.approval(matching: idOrPrefix)
        guard stored.approval.provider == .local, stored.approval.kind == .stepup else {
            throw ServiceError(.notFound, "approval \(stored.approval.id) is not a step-up")
        }
        let details = try Self.details(of: stored)
        guard details.caller.uid == peer.uid else {
            throw ServiceError(.forbidden, "step-up \(stored.approval.id) was asked by uid \(details.caller.uid); only that uid may \(toDo)")
        }
        return (stored, details)
    }

    private func answered(_ approval: Approval, _ details: StepUpDetails, peer: Peer, now: Date) async throws -> StepUp {
        guard approval.state == .approved, let approvedAt = approval.resolvedAt else {
            return StepUp(approval: approval, details: details)
        }
        let until = approvedAt.addingTimeInterval(Self.answerLifetime)
        guard now < until else {
            throw ServiceError(.expired, "the answer to step-up \(approval.id) was available until \(until.formatted(.iso8601)); ask for a new step-up")
        }
        var answer = StepUp(approval: approval, details: details)
        answer.answerExpiresAt = until
        switch details.answer {
        case .totp:
            let accountId = details.accountId ?? ""
            guard let totp = try? await store.account(matching: accountId).totp else {
                throw ServiceError(.notFound, "account \(accountId), whose code answers step-up \(approval.id), was removed")
            }
            answer.code = TOTP.code(totp, at: now).code
        case .receipt:
            let claims = StepUpReceiptClaims(
                approvalId: approval.id, issuedAt: Int64(approvedAt.timeIntervalSince1970),
                expiresAt: Int64(until.timeIntervalSince1970), authTime: Int64(approvedAt.timeIntervalSince1970),
                businessNumber: details.businessNumber, audience: details.audience)
            answer.receipt = try await StepUpReceipt.sign(claims, with: try await store.deviceSigningKey())
        }
        try await store.audit(event: "stepup_answer", peer: peer, subject: approval.id, detail: details.answer.rawValue)
        return answer
    }

    /// Returns when `id` becomes final, the time is up, or the daemon stops (the bus then ends every stream).
    private static func waitForFinal(_ id: String, in updates: AsyncStream<ControlEvent>, seconds: Int) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in updates where event.approval?.id == id && event.approval?.state.isFinal == true { return }
            }
            group.addTask { try? await Task.sleep(for: .seconds(seconds)) }
            await group.next()
            group.cancelAll()
        }
    }
}
