import Foundation
import PushAgentCore

/// `POST /v1/accounts/{id}/mute`: deny the account's pushes unseen for a while.
public struct MuteRequest: Codable, Sendable {
    /// How long; the daemon's `fraud_mute_seconds` when absent.
    public var seconds: Double?
    public init(seconds: Double? = nil) { self.seconds = seconds }
}

/// `POST /v1/approvals/deny`: deny every pending approval, or those of one account.
public struct DenyAllRequest: Codable, Sendable {
    public var account: String?
    public var reason: DenyReason?
    public init(account: String? = nil, reason: DenyReason? = nil) {
        self.account = account
        self.reason = reason
    }
}

/// The `approval.bombing` event: one account's pushes went over its budget. Raised once per burst, not per push.
public struct BombingAlert: Codable, Sendable, Equatable {
    public var accountId: String
    public var provider: Provider
    /// The budget that was exceeded: `limit` pushes per `windowSeconds`.
    public var limit: Int
    public var windowSeconds: Double

    /// `approval`'s account went over `budget`.
    public init(_ approval: Approval, over budget: PushBudget) {
        accountId = approval.accountId
        provider = approval.provider
        limit = budget.limit
        windowSeconds = budget.window
    }

    enum CodingKeys: String, CodingKey {
        case accountId = "account_id", provider, limit, windowSeconds = "window_seconds"
    }
}
