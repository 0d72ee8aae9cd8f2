import ControlWire
import Foundation
import PushAgentCore
import PushAgentStore

extension ApprovalService {
    /// An approval of kind verify asks the provider to vouch that the user is present, so the operator proves it:
    /// through polkit, whose agent asks for their password (a desktop dialog, or pkttyagent in a terminal), or with
    /// their login password sent along, checked through PAM. Root may instead state it (`user_verified`), for
    /// automation running as root; anyone else could state it without a user being there, which is blind approval.
    func verifyUser(for approval: Approval, userVerified: Bool, password: String?, peer: Peer) async throws {
        if password == nil, peer.uid == 0 {
            guard userVerified else {
                throw ServiceError(.invalidArgument, "approval \(approval.id) requires user verification: approve it from a terminal with `pushctl approve \(approval.id)` (it asks you to confirm), or pass --user-verified if your automation verified the user")
            }
            return
        }
        if password == nil, !(await polkit.isAvailable()) {
            let ignored = userVerified ? "user_verified is accepted from root only; " : ""
            throw ServiceError(.forbidden, "approval \(approval.id) requires user verification: \(ignored)`pushctl approve \(approval.id)` asks for your login password; automation must run as root or pass the password with --password-fd")
        }
        guard let user = PAMAuthenticator.userName(of: peer.uid) else {
            throw ServiceError(.forbidden, "user verification failed: uid \(peer.uid) has no user name to check a password for")
        }
        if let wait = verificationAttempts.secondsToWait(uid: peer.uid, approvalId: approval.id, now: Date()) {
            throw ServiceError(.busy, "too many attempts: user verification for approval \(approval.id) failed just before; retry in \(wait) s")
        }
        if let password {
            try await verifyPassword(password, of: user, for: approval, peer: peer)
        } else {
            try await verifyThroughPolkit(user: user, for: approval, peer: peer)
        }
        verificationAttempts.forget(uid: peer.uid, approvalId: approval.id)
    }

    private func verifyPassword(_ password: String, of user: String, for approval: Approval, peer: Peer) async throws {
        let settings = config.current
        let pam = PAMAuthenticator(service: settings.userVerificationPAMService,
                                   configDirectory: settings.userVerificationPAMDirectory)
        do {
            try await pam.authenticate(user: user, password: password)
        } catch {
            try await failedVerification(of: user, for: approval, peer: peer, cause: "\(error)", auditDetail: "user=\(user)",
                                         refusal: "user verification failed for \(user): \(error)")
        }
    }

    private func verifyThroughPolkit(user: String, for approval: Approval, peer: Peer) async throws {
        let subject = try PolkitSubject(peer: peer)
        let timeout = min(UserVerificationMethod.longestPolkitWait,
                          .seconds(max(1, Int(approval.expiresAt.timeIntervalSinceNow))))
        // Only root and the action's owner (the system service's user) may pass details; the user daemon checks its
        // own user's processes, and then polkit shows the policy's message.
        let details: [String: String] = getuid() == peer.uid ? [:] : [
            "approval_id": approval.id,
            "polkit.message": DisplayText.sanitized("Confirm it is you to approve this \(approval.provider.rawValue) sign-in: \(approval.message.prefix(200))"),
        ]
        let decision: PolkitDecision
        do {
            decision = try await polkit.check(subject, details: details, cancellationId: "\(approval.id)/\(peer.pid)",
                                              timeout: timeout)
        } catch where error.timedOut {
            try? await store.audit(event: "verify_failed", peer: peer, subject: approval.id, detail: "user=\(user) polkit=timeout")
            throw ServiceError(.forbidden, "nobody answered polkit's authentication request for approval \(approval.id) within \(timeout.components.seconds) s; approve it again and answer the password dialog")
        } catch {
            throw ServiceError(.unavailable, "cannot ask polkit whether \(user) may approve \(approval.id): \(error); pass your login password with --password-fd instead (docs/configuration.md, User verification)")
        }
        guard let refusal = decision.refusal(approvalId: approval.id, uid: peer.uid, user: user) else { return }
        let auditDetail = "user=\(user) polkit=\(decision.auditName)"
        guard case .notAuthenticated = decision else {
            // No password was tried: nothing to slow down or count towards denying the approval.
            try? await store.audit(event: "verify_failed", peer: peer, subject: approval.id, detail: auditDetail)
            logger.warning("user verification for approval \(approval.id) refused for \(user) (uid \(peer.uid)): polkit \(decision.auditName)",
                           metadata: ["approval_id": "\(approval.id)", "peer_uid": "\(peer.uid)"])
            throw ServiceError(.forbidden, refusal)
        }
        try await failedVerification(of: user, for: approval, peer: peer, cause: "polkit \(decision.auditName)",
                                     auditDetail: auditDetail, refusal: refusal)
    }

    /// A wrong password (or none given to polkit's dialog): counted, audited and logged, without the password. The
    /// approval's last allowed failure denies it (`VerificationLockout`); before that, the refusal says when to retry.
    private func failedVerification(of user: String, for approval: Approval, peer: Peer, cause: String,
                                    auditDetail: String, refusal: String) async throws -> Never {
        let failed = verificationAttempts.recordFailure(uid: peer.uid, approvalId: approval.id, now: Date())
        try? await store.audit(event: "verify_failed", peer: peer, subject: approval.id, detail: auditDetail)
        logger.warning("user verification for approval \(approval.id) failed for \(user) (uid \(peer.uid), failure \(failed.count) of \(VerificationAttempts.failuresBeforeDenial)): \(cause)",
                       metadata: ["approval_id": "\(approval.id)", "peer_uid": "\(peer.uid)"])
        guard failed.count < VerificationAttempts.failuresBeforeDenial else {
            throw VerificationLockout(approvalId: approval.id, user: user, failures: failed.count)
        }
        let left = VerificationAttempts.failuresBeforeDenial - failed.count
        throw ServiceError(.forbidden, "\(refusal); retry in \(Int(failed.wait)) s (after \(left) more failure(s) the approval is denied)")
    }
}

/// The approval's last allowed password was wrong: it is denied (whoever is guessing gets no more tries).
struct VerificationLockout: Error {
    let approvalId: String
    let user: String
    let failures: Int

    var message: String {
        "user verification failed for \(user) \(failures) times: approval \(approvalId) was denied, so that its password cannot be guessed; if the sign-in was yours, start it again"
    }
}
