/// What polkit answered a CheckAuthorization with: `(is_authorized, is_challenge, details)`, read into what happened.
enum PolkitDecision: Equatable, Sendable {
    case authorized
    /// polkit asked the user and they did not prove it is them: a wrong password, or the dialog closed unanswered.
    case notAuthenticated(dismissed: Bool)
    /// polkit would ask, but no authentication agent serves the process or its session.
    case noAgent
    /// polkit said no without asking: an administrator's rule (or the policy) forbids it.
    case denied

    /// polkitd answers both a failed challenge and a plain "no" with (false, false); only a challenge leaves the
    /// implicit authorization it asked for in the details ("polkit.result", e.g. "auth_self"), and a dismissed one
    /// "polkit.dismissed".
    init(isAuthorized: Bool, isChallenge: Bool, details: [String: String]) {
        if isAuthorized {
            self = .authorized
        } else if isChallenge {
            self = .noAgent
        } else if details["polkit.dismissed"] == "true" {
            self = .notAuthenticated(dismissed: true)
        } else if details["polkit.result"] != nil {
            self = .notAuthenticated(dismissed: false)
        } else {
            self = .denied
        }
    }

    /// The decision in the audit log's and the journal's words.
    var auditName: String {
        switch self {
        case .authorized: "authorized"
        case .notAuthenticated(let dismissed): dismissed ? "dismissed" : "not_authenticated"
        case .noAgent: "no_agent"
        case .denied: "denied_by_rule"
        }
    }

    /// Why the approval was refused and what to do next; nil when it was not.
    func refusal(approvalId: String, uid: UInt32, user: String) -> String? {
        let who = "polkit refused \(PolkitAuthority.actionId) for \(user) (uid \(uid))"
        switch self {
        case .authorized:
            return nil
        case .notAuthenticated(let dismissed):
            let what = dismissed ? "the authentication dialog was dismissed" : "the password was wrong, or the dialog was dismissed"
            return "\(who): \(what); approve \(approvalId) again, or run `pushctl approve \(approvalId)` in a terminal, which asks for the password there (pkttyagent)"
        case .noAgent:
            return "\(who): no polkit authentication agent could ask you for your password; run `pushctl approve \(approvalId)` in a terminal (it starts pkttyagent), approve from a desktop session that runs a polkit agent, or pass your login password with --password-fd"
        case .denied:
            return "\(who) without asking: an administrator's polkit rule forbids it (see /etc/polkit-1/rules.d); ask an administrator to allow it, or to approve \(approvalId) as root"
        }
    }
}
