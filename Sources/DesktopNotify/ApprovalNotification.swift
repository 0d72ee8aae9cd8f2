import PushAgentCore

/// What the desktop shows for an approval, and what its buttons do. Pure, so every kind and fallback is testable
/// without a bus.
public enum ApprovalNotification {
    /// What pressing a button asks of the daemon.
    public enum Decision: Sendable, Equatable {
        case approve(number: String?)
        case deny(reason: DenyReason?)
    }

    /// Dialects whose deny carries a reason the provider acts on (privacyIDEA's decline reason, PlusAuth's
    /// `fraud_suspicion`); for the others "Report fraud" would be a plain deny with a misleading name.
    static let fraudReporting: Set<Provider> = [.privacyidea, .plusauth]

    /// `actions`: the server shows buttons; else the text says which pushctl command answers. `markup`: the server
    /// reads body markup, so text from the push is escaped.
    public static func content(for approval: Approval, actions: Bool, markup: Bool) -> DesktopNotification {
        var lines = [text(approval.message, markup)]
        let context = approval.context
        for (name, value) in [("App", context.app), ("User", context.user), ("IP", context.ip),
                              ("Location", context.location), ("Browser", context.userAgent)] {
            if let value, !value.isEmpty { lines.append("\(name): \(text(value, markup))") }
        }
        let buttons = actions ? self.actions(for: approval) : []
        if approval.kind == .verify {
            lines.append("Approving needs your password: run pushctl approve \(approval.id) in a terminal.")
        } else if !actions {
            let number = approval.kind == .number ? " --number N" : ""
            lines.append("Approve: pushctl approve \(approval.id)\(number)   Deny: pushctl deny \(approval.id)")
        }
        if approval.kind == .number, let numbers = approval.numbers, !actions {
            lines.append("Pick the number shown at the sign-in: \(numbers.joined(separator: ", "))")
        }
        return DesktopNotification(summary: text(approval.title, false), body: lines.joined(separator: "\n"),
                                   actions: buttons, urgency: .critical, resident: true, expireTimeoutMs: 0)
    }

    /// A number approval can only be approved by picking a number; a verify approval needs the user's password,
    /// which a notification cannot ask for, so it offers no Approve.
    static func actions(for approval: Approval) -> [DesktopNotification.Action] {
        var actions: [DesktopNotification.Action] = switch approval.kind {
        case .number: (approval.numbers ?? []).map { .init("number:\($0)", DisplayText.sanitized($0)) }
        case .verify: []
        case .prompt, .stepup: [.init("approve", "Approve")]
        }
        actions.append(.init("deny", "Deny"))
        if fraudReporting.contains(approval.provider) { actions.append(.init("fraud", "Report fraud")) }
        return actions
    }

    /// The decision behind a button of `approval`; nil for a key it never had (a stale or forged signal).
    public static func decision(forAction key: String, of approval: Approval) -> Decision? {
        guard actions(for: approval).contains(where: { $0.key == key }) else { return nil }
        switch key {
        case "approve": return .approve(number: nil)
        case "deny": return .deny(reason: nil)
        case "fraud": return .deny(reason: .fraud)
        default: return .approve(number: String(key.dropFirst("number:".count)))
        }
    }

    /// Shown briefly once the approval is resolved, wherever that happened.
    public static func result(of approval: Approval, markup: Bool) -> DesktopNotification {
        let summary = switch approval.state {
        case .approved: "Sign-in approved"
        case .denied: "Sign-in denied"
        case .expired: "Sign-in request expired"
        default: "Sign-in answer failed"
        }
        var body = text(approval.title, markup)
        if let error = approval.error { body += "\n" + text(error, markup) }
        return DesktopNotification(summary: summary, body: body, transient: true, expireTimeoutMs: 5000)
    }

    /// The daemon refused a button (not an operator, already answered, expired): why, briefly.
    public static func refusal(of approval: Approval, reason: String, markup: Bool) -> DesktopNotification {
        DesktopNotification(summary: "Could not answer: \(text(approval.title, false))", body: text(reason, markup),
                            transient: true, expireTimeoutMs: 10_000)
    }

    static func text(_ value: String, _ markup: Bool) -> String {
        let safe = DisplayText.sanitized(value)
        guard markup else { return safe }
        return safe.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
