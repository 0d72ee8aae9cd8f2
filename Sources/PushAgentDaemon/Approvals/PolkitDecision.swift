/// polkit's answer to a CheckAuthorization: `(is_authorized, is_challenge, details)`.
struct PolkitReply: Equatable, Sendable {
    let isAuthorized: Bool
    let isChallenge: Bool
    let details: [String: String]
}

/// What polkit's answers mean. polkitd answers a failed or dismissed challenge and a rule's plain "no" alike,
/// (false, false), so it is asked first without user interaction, where "no" can only be a rule's (or the policy's),
/// and only then, when it would ask, with user interaction.
enum PolkitDecision: Equatable, Sendable {
    case authorized
    /// polkit asked the user and they did not prove it is them: a wrong password, or the dialog closed unanswered.
    case notAuthenticated(dismissed: Bool)
    /// polkit would ask, but no authentication agent serves the process or its session.
    case noAgent
    /// polkit said no without asking: an administrator's rule (or the policy) forbids it.
    case denied

    /// The answer without user interaction: decided, or nil when polkit would ask the user (a challenge).
    init?(probe: PolkitReply) {
        if probe.isAuthorized {
            self = .authorized
        } else if probe.isChallenge {
            return nil
        } else {
            self = .denied
        }
    }

    /// The answer with user interaction, to a check that the probe found needs it.
    init(answer: PolkitReply) {
        if answer.isAuthorized {
            self = .authorized
        } else if answer.isChallenge {
            // Still a challenge: polkitd found no agent to put it to.
            self = .noAgent
        } else {
            self = .notAuthenticated(dismissed: answer.details["polkit.dismissed"] == "true")
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
