import Foundation
import PushAgentCore
import PushAgentStore

extension ApprovalService {
    /// An approval of kind verify asks the provider to vouch that the user is present, so the operator proves it:
    /// with their login password, checked through PAM. Root may instead state it (`user_verified`), for automation
    /// running as root; anyone else could state it without a user being there, which is blind approval.
    func verifyUser(for approval: Approval, userVerified: Bool, password: String?, peer: Peer) async throws {
        guard let password else {
            if peer.uid == 0 {
                guard userVerified else {
                    throw ServiceError(.invalidArgument, "approval \(approval.id) requires user verification: approve it from a terminal with `pushctl approve \(approval.id)` (it asks you to confirm), or pass --user-verified if your automation verified the user")
                }
                return
            }
            let ignored = userVerified ? "user_verified is accepted from root only; " : ""
            throw ServiceError(.forbidden, "approval \(approval.id) requires user verification: \(ignored)`pushctl approve \(approval.id)` asks for your login password; automation must run as root or pass the password with --password-fd")
        }
        guard let user = PAMAuthenticator.userName(of: peer.uid) else {
            throw ServiceError(.forbidden, "user verification failed: uid \(peer.uid) has no user name to check a password for")
        }
        if let wait = verificationAttempts.secondsToWait(uid: peer.uid, approvalId: approval.id, now: Date()) {
            throw ServiceError(.busy, "too many attempts: user verification for approval \(approval.id) failed just before; retry in \(wait) s")
        }
        let settings = config.current
        let pam = PAMAuthenticator(service: settings.userVerificationPAMService,
                                   configDirectory: settings.userVerificationPAMDirectory)
        do {
            try await pam.authenticate(user: user, password: password)
        } catch {
            let failed = verificationAttempts.recordFailure(uid: peer.uid, approvalId: approval.id, now: Date())
            try? await store.audit(event: "verify_failed", peer: peer, subject: approval.id, detail: "user=\(user)")
            logger.warning("user verification for approval \(approval.id) failed for \(user) (uid \(peer.uid), failure \(failed.count) of \(VerificationAttempts.failuresBeforeDenial)): \(error)",
                           metadata: ["approval_id": "\(approval.id)", "peer_uid": "\(peer.uid)"])
            guard failed.count < VerificationAttempts.failuresBeforeDenial else {
                throw VerificationLockout(approvalId: approval.id, user: user, failures: failed.count)
            }
            let left = VerificationAttempts.failuresBeforeDenial - failed.count
            throw ServiceError(.forbidden, "user verification failed for \(user): \(error); retry in \(Int(failed.wait)) s (after \(left) more failure(s) the approval is denied)")
        }
        verificationAttempts.forget(uid: peer.uid, approvalId: approval.id)
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
