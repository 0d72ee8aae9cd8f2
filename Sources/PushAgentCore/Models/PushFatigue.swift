import Foundation

/// Why the agent denied a push on the user's behalf instead of showing it: the defences against push bombing
/// (MFA fatigue), docs/control-api.md "Push bombing".
public enum AutomaticDenial: String, Codable, Sendable {
    /// The account had more pushes within the window than its budget.
    case rateLimited = "rate_limited"
    /// The account is muted, after a fraud report or by `pushctl mute`.
    case muted
    /// A newer request with the same sign-in details arrived: one visible approval per identical request.
    case superseded
}

/// How many pushes one account may bring within a sliding window before the rest are denied unseen.
public struct PushBudget: Sendable, Equatable {
    /// Pushes admitted per window; 0 admits every push.
    public var limit: Int
    public var window: TimeInterval

    public init(limit: Int, window: TimeInterval) {
        self.limit = limit
        self.window = window
    }

    /// Admits every push.
    public static let unlimited = PushBudget(limit: 0, window: 0)

    public func admits(admittedWithinWindow count: Int) -> Bool { limit == 0 || count < limit }
}

extension ApprovalDraft {
    /// What the user sees of a request, without what differs between two tries of one sign-in (its replay key,
    /// choices and times): two pending approvals with the same key look the same, so only the newer is shown.
    public var similarityKey: String {
        let c = context
        let parts = [provider.rawValue, accountId, kind.rawValue, title, message,
                     c.app ?? "", c.user ?? "", c.ip ?? "", c.location ?? "", c.userAgent ?? ""]
        return parts.map { "\($0.utf8.count):\($0)" }.joined()
    }
}
