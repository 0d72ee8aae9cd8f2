import Foundation
import PushAgentCore

/// What the desktop shows for an approval, and what its buttons do. Pure, so every kind and fallback is testable
/// without a bus.
public enum ApprovalNotification {
    /// What pressing a button asks of the daemon.
    public enum Decision: Sendable, Equatable {
        case approve(number: String?)
        case deny(reason: DenyReason?)
    }

    /// `actions`: the server shows buttons; else the text says which pushctl command answers. `markup`: the server
    /// reads body markup, so text from the push is escaped. `polkit`: the daemon verifies the user through polkit,
    /// whose agent asks for the password, so a verify approval can be approved from the notification.
    public static func content(for approval: Approval, actions: Bool, markup: Bool, polkit: Bool = false) -> DesktopNotification {
        var lines = [text(approval.message, markup)]
        let context = approval.context
        for (name, value) in [("App", context.app), ("User", context.user), ("IP", context.ip),
                              ("Location", context.location), ("Browser", context.userAgent)] {
            if let value, !value.isEmpty { lines.append("\(name): \(text(value, markup))") }
        }
        let buttons = actions ? self.actions(for: approval, polkit: polkit) : []
        lines.append(instruction(for: approval, actions: actions, markup: markup))
        if approval.kind == .verify, polkit, actions {
            lines.append("Approving asks for your password.")
        } else if approval.kind == .verify {
            lines.append("Approving needs your password: run pushctl approve \(approval.id) in a terminal.")
        } else if !actions {
            let number = approval.kind == .number ? " --number N" : ""
            lines.append("Approve: pushctl approve \(approval.id)\(number)   Deny: pushctl deny \(approval.id)")
        }
        // Each request's text is its own: servers merge notifications whose texts are equal (dunst's
        // stack_duplicates), and two sign-ins must never become one.
        lines.append("Request \(approval.id)")
        return DesktopNotification(summary: text(approval.title, false), body: lines.joined(separator: "\n"),
                                   actions: buttons, urgency: .critical, resident: true, expireTimeoutMs: 0)
    }

    /// What the user is asked to do, which differs by kind.
    static func instruction(for approval: Approval, actions: Bool, markup: Bool) -> String {
        switch approval.kind {
        case .number:
            let numbers = actions ? "" : ": " + (approval.numbers ?? []).map { text($0, markup) }.joined(separator: ", ")
            return "Pick the number shown at the sign-in\(numbers). Deny if you did not start it."
        case .verify: return "Confirm it is you, only if you started this sign-in."
        case .prompt, .stepup: return "Approve only if you started this sign-in."
        }
    }

    /// A number approval can only be approved by picking a number; a verify approval needs the user's password,
    /// which a notification cannot ask for: it offers Approve only where polkit's agent asks for it.
    static func actions(for approval: Approval, polkit: Bool) -> [DesktopNotification.Action] {
        var actions: [DesktopNotification.Action] = switch approval.kind {
        case .number: (approval.numbers ?? []).map { .init("number:\($0)", DisplayText.sanitized($0)) }
        case .verify: polkit ? [.init("approve", "Approve")] : []
        case .prompt, .stepup: [.init("approve", "Approve")]
        }
        actions.append(.init("deny", "Deny"))
        // Only where the provider acts on the reason: elsewhere "Report fraud" would be a plain deny with a misleading name.
        if ProviderRegistry[approval.provider]?.capabilities.contains(.fraudReport) == true { actions.append(.init("fraud", "Report fraud")) }
        return actions
    }

    /// The decision behind a button of `approval`; nil for a key it never had (a stale or forged signal).
    public static func decision(forAction key: String, of approval: Approval, polkit: Bool = false) -> Decision? {
        guard actions(for: approval, polkit: polkit).contains(where: { $0.key == key }) else { return nil }
        switch key {
        case "approve": return .approve(number: nil)
        case "deny": return .deny(reason: nil)
        case "fraud": return .deny(reason: .fraud)
        default: return .approve(number: String(key.dropFirst("number:".count)))
        }
    }

    /// Shown briefly once the approval is resolved, wherever that happened. `mutedUntil`: the account's mute, after
    /// a fraud report. Nil when saying anything would mislead: a look-alike request replaced it (the newer one is
    /// on screen, and the user did nothing).
    public static func result(of approval: Approval, mutedUntil: Date? = nil, markup: Bool) -> DesktopNotification? {
        if approval.resolution?.automatic == .superseded { return nil }
        let fraud = approval.state == .denied && approval.resolution?.reason == .fraud
        let summary = switch approval.state {
        case .approved: "Sign-in approved"
        case .denied: fraud ? "Sign-in denied and reported as fraud" : "Sign-in denied"
        case .expired: "Sign-in request expired"
        default: "Sign-in answer failed"
        }
        var body = text(approval.title, markup)
        if let error = approval.error { body += "\n" + text(error, markup) }
        if fraud {
            body += "\n" + (mutedUntil.map {
                "Account muted until \($0.formatted(date: .abbreviated, time: .shortened)): its pushes are denied unseen. "
                    + "pushctl unmute \(approval.accountId) ends that."
            } ?? "The account's pushes are denied unseen for a while (pushctl accounts shows until when).")
        }
        return DesktopNotification(summary: summary, body: body, transient: true, expireTimeoutMs: fraud ? 10_000 : 5000)
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
