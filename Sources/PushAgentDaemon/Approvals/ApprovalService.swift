import ControlWire
import Foundation
import Logging
import PushAgentCore
import PushAgentStore

/// Answers approvals: validates the user's choice, moves the state machine, and sends the provider's answer
/// (retried with backoff on network failures until the approval expires).
struct ApprovalService: Sendable {
    let store: AgentStore
    let modules: ProviderModules
    let events: EventBus
    let inFlight: InFlightAnswers
    let config: LiveConfig
    let muting: AccountMuting
    let logger: Logger
    /// Shared by every copy of the service: wrong passwords are counted across requests.
    let verificationAttempts = VerificationAttempts()
    /// Shared likewise: whether polkit is there is found out once in a while, not for every request.
    let polkit = PolkitAuthority()

    /// Starts answering and waits (bounded) for the provider's verdict; past the bound the approval is returned in progress.
    func answer(_ idOrPrefix: String, decision: AnswerDecision, userVerified: Bool, password: String? = nil,
                peer: Peer) async throws -> Approval {
        let stored = try await store.approval(matching: idOrPrefix)
        let (started, task) = try await begin(stored, decision: decision, userVerified: userVerified, password: password,
                                              peer: peer)
        try await muteAfterFraud([started], decision: decision, peer: peer)
        return await settled([(started, task)])[0]
    }

    /// Denies every pending approval (of one account): `pushctl deny --all`. Those that expire meanwhile are left out.
    func denyAll(account idOrPrefix: String?, reason: DenyReason?, peer: Peer) async throws -> [Approval] {
        var accountId: String?
        if let idOrPrefix { accountId = try await store.account(matching: idOrPrefix).account.id }
        var started: [(Approval, Task<Approval, Never>)] = []
        for approval in try await store.approvals(state: .pending) where accountId == nil || approval.accountId == accountId {
            do {
                let stored = try await store.approval(matching: approval.id)
                started.append(try await begin(stored, decision: .deny(reason: reason), userVerified: false, peer: peer))
            } catch let error as ServiceError where [.expired, .conflict].contains(error.kind) {
                continue
            } catch StoreError.conflict {
                continue  // answered by someone else meanwhile
            }
        }
        try await muteAfterFraud(started.map(\.0), decision: .deny(reason: reason), peer: peer)
        return await settled(started)
    }

    /// Sends the deny of an approval the agent denied unseen (already `denying`, PushFatigueDefence).
    func sendAutomaticDenial(_ stored: StoredApproval) {
        _ = inFlight.start { await send(stored, .deny(reason: stored.approval.resolution?.reason)) }
    }

    /// Waits (bounded by `answer_wait_seconds`) for the providers' verdicts; past the bound each approval is returned
    /// as far as it got.
    private func settled(_ started: [(Approval, Task<Approval, Never>)]) async -> [Approval] {
        let wait = Duration.milliseconds(Int(config.current.answerWaitSeconds * 1000))
        if let finished = await InFlightAnswers.results(of: started.map(\.1), within: wait) { return finished }
        var result: [Approval] = []
        for (approval, _) in started {
            result.append((try? await store.approval(matching: approval.id).approval) ?? approval)
        }
        return result
    }

    /// A deny as fraud mutes the account (`fraud_mute_seconds`), as Duo does: the pushes after it are attacks too.
    private func muteAfterFraud(_ denied: [Approval], decision: AnswerDecision, peer: Peer) async throws {
        guard case .deny(.fraud) = decision, config.current.fraudMuteSeconds > 0 else { return }
        var muted: Set<String> = []
        for approval in denied where approval.provider != .local && muted.insert(approval.accountId).inserted {
            _ = try await muting.mute(approval.accountId, forSeconds: config.current.fraudMuteSeconds,
                                      reason: "fraud reported on approval \(approval.id)", peer: peer)
        }
    }

    /// Checks and records the user's answer, and starts sending it; the task ends with the provider's verdict.
    private func begin(_ stored: StoredApproval, decision: AnswerDecision, userVerified: Bool, password: String? = nil,
                       peer: Peer) async throws -> (Approval, Task<Approval, Never>) {
        let approval = stored.approval
        if approval.state == .pending, approval.isExpired(at: Date()) {
            try await expire(approval.id)
            throw ServiceError(.expired, "approval \(approval.id) expired at \(approval.expiresAt.formatted(.iso8601)); the sign-in must be started again")
        }
        guard approval.state == .pending else {
            throw ServiceError(.conflict, "approval \(approval.id) is already \(approval.state.rawValue)")
        }
        let resolution = try resolution(for: approval, decision: decision, peer: peer)
        if case .approve = decision, approval.kind == .verify {
            do {
                try await verifyUser(for: approval, userVerified: userVerified, password: password, peer: peer)
            } catch let lockout as VerificationLockout {
                _ = try await begin(stored, decision: .deny(reason: nil), userVerified: false, peer: peer)
                try await store.audit(event: "verify_denied", peer: peer, subject: approval.id,
                                      detail: "\(lockout.failures) failed user verifications")
                logger.warning("approval \(approval.id) denied after \(lockout.failures) failed user verifications by uid \(peer.uid)",
                               metadata: ["approval_id": "\(approval.id)", "peer_uid": "\(peer.uid)"])
                throw ServiceError(.forbidden, lockout.message)
            }
        }
        let next: ApprovalState = if case .approve = decision { .approving } else { .denying }
        let started = try await store.transition(approval.id, to: next, resolution: resolution)
        try await store.audit(event: next == .approving ? "approve" : "deny", peer: peer, subject: approval.id,
                              detail: resolution.number.map { "number=\($0)" } ?? resolution.reason.map { "reason=\($0.rawValue)" })
        await events.publish(.approvalUpdated(started))
        let task = inFlight.start { await send(stored.with(started), decision) }
        return (started, task)
    }

    /// Resumes answers a previous run started but did not finish.
    func resumeUnfinished() async throws {
        for stored in try await store.unfinishedAnswers() {
            let decision: AnswerDecision = stored.approval.state == .approving
                ? .approve(number: stored.approval.resolution?.number)
                : .deny(reason: stored.approval.resolution?.reason)
            logger.notice("resuming the answer to \(stored.approval.id)", metadata: ["approval_id": "\(stored.approval.id)"])
            _ = inFlight.start { await send(stored, decision, resumed: true) }
        }
    }

    func expire(_ id: String) async throws {
        let expired = try await store.transition(id, to: .expired)
        await announceExpired(expired)
    }

    func announceExpired(_ approval: Approval) async {
        logger.notice("approval \(approval.id) expired unanswered", metadata: [
            "message_id": "\(LogMessageID.approvalExpired)", "approval_id": "\(approval.id)",
            "account_id": "\(approval.accountId)", "provider": "\(approval.provider.rawValue)"])
        await events.publish(.approvalUpdated(approval))
    }

    private func resolution(for approval: Approval, decision: AnswerDecision, peer: Peer) throws -> Resolution {
        switch decision {
        case .approve(let number):
            if approval.kind == .number {
                guard let number else {
                    throw ServiceError(.invalidArgument, "approval \(approval.id) needs the number shown at sign-in: one of \(approval.numbers?.joined(separator: ", ") ?? "?") (pushctl approve \(approval.id) --number N)")
                }
                guard approval.numbers?.contains(number) ?? false else {
                    throw ServiceError(.invalidArgument, "\(number) is not one of the choices \(approval.numbers?.joined(separator: ", ") ?? "")")
                }
            } else if number != nil {
                throw ServiceError(.invalidArgument, "approval \(approval.id) is a \(approval.kind.rawValue) approval; it takes no number")
            }
            return Resolution(byUid: peer.uid, number: number)
        case .deny(let reason):
            return Resolution(byUid: peer.uid, reason: reason ?? .ignore)
        }
    }

    /// Sends the answer until the provider accepts or refuses it, or the approval expires. `resumed`: a previous run
    /// may have sent it already.
    private func send(_ stored: StoredApproval, _ decision: AnswerDecision, resumed: Bool = false) async -> Approval {
        let approval = stored.approval
        let success: ApprovalState = if case .approve = decision { .approved } else { .denied }
        // A local step-up has no provider to tell: the program that asked collects the answer (GET /v1/stepups/{id}).
        if approval.provider == .local { return await finish(approval, state: success, error: nil) }
        var backoff = Backoff(config.current)
        var outcome: (ApprovalState, String?)
        var reply = AnswerReply.nothing
        var sentBefore = resumed
        while true {
            do {
                guard let module = modules[approval.provider] else {
                    throw AnswerFailure.rejected("\(approval.provider.rawValue) answers are not supported")
                }
                let account = try await store.account(matching: approval.accountId)
                reply = try await module.answer(stored, account: account, decision: decision)
                outcome = (success, nil)
            } catch AnswerFailure.retryable(let cause) {
                let delay = backoff.next()
                sentBefore = true
                if Date().addingTimeInterval(delay) < approval.expiresAt, !Task.isCancelled {
                    logger.warning("answer to \(approval.id) not delivered: \(cause); retrying in \(String(format: "%.1f", delay)) s",
                                   metadata: ["approval_id": "\(approval.id)"])
                    try? await Task.sleep(for: .milliseconds(Int(delay * 1000)))
                    continue
                }
                outcome = (.failed, "the provider could not be reached before the approval expired: \(cause)")
            } catch AnswerFailure.rejected(let cause) {
                // A provider that already took an answer whose reply was lost refuses the same answer again.
                outcome = (.failed, sentBefore ? cause + "; an earlier attempt may have reached \(approval.provider.displayName) before its reply was lost: if the sign-in did not go through, start it again" : cause)
            } catch {
                outcome = (.failed, "\(error)")
            }
            break
        }
        return await finish(approval, state: outcome.0, error: outcome.1, reply: reply)
    }

    private func finish(_ approval: Approval, state: ApprovalState, error: String?, reply: AnswerReply = .nothing)
        async -> Approval {
        var resolution = approval.resolution
        if reply != .nothing {
            resolution?.displayCode = reply.displayCode
            resolution?.displayMessage = reply.displayMessage
        }
        do {
            let final = try await store.transition(approval.id, to: state, resolution: resolution, error: error)
            var metadata: Logger.Metadata = [
                "message_id": "\(LogMessageID.approvalAnswered)", "approval_id": "\(approval.id)",
                "account_id": "\(approval.accountId)", "provider": "\(approval.provider.rawValue)",
            ]
            if let uid = final.resolution?.byUid { metadata["peer_uid"] = "\(uid)" }
            if let error {
                logger.error("approval \(approval.id) failed: \(error)", metadata: metadata)
            } else {
                logger.notice("approval \(approval.id) \(state.rawValue) by uid \(final.resolution?.byUid.map(String.init) ?? "?")", metadata: metadata)
            }
            await events.publish(.approvalUpdated(final))
            return final
        } catch {
            logger.error("approval \(approval.id): cannot record the outcome: \(error)", metadata: ["approval_id": "\(approval.id)"])
            return approval
        }
    }
}
