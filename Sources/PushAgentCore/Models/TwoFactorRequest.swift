import Foundation

/// Where a 2FA request this device made stands. `approved` means the other device said yes and this device is
/// finishing (a Hyphen sign-in still has to collect its credentials); the final states are the last four.
public enum TwoFactorRequestState: String, Codable, Sendable, CaseIterable {
    case pending, approved, completed, denied, expired, failed

    public var isFinal: Bool {
        switch self {
        case .completed, .denied, .expired, .failed: true
        case .pending, .approved: false
        }
    }

    /// pending → approved → completed|failed; pending → completed (nothing to wait for) |denied|expired|failed.
    public func canTransition(to next: TwoFactorRequestState) -> Bool {
        switch (self, next) {
        case (.pending, .approved), (.pending, .completed), (.pending, .denied), (.pending, .expired),
             (.pending, .failed), (.approved, .completed), (.approved, .failed):
            true
        default:
            false
        }
    }
}

/// A 2FA request this device made and another device answers (the source-device role: Hyphen's sign-in of this
/// machine, answered by the user's phone). The control API's `/v1/requests`.
public struct TwoFactorRequest: Codable, Sendable, Equatable, Identifiable {
    public var id: String
    public var provider: Provider
    public var accountId: String
    /// The provider's id for it (Hyphen `twoFactorAuth.id`), which its status pushes name.
    public var remoteId: String
    public var title: String
    public var message: String
    public var state: TwoFactorRequestState
    public var createdAt: Date
    public var expiresAt: Date
    public var updatedAt: Date
    /// The transaction the approving device ran (Hyphen `result.txId`).
    public var txId: String?
    public var error: String?

    public init(id: String, provider: Provider, accountId: String, remoteId: String, title: String, message: String,
                state: TwoFactorRequestState, createdAt: Date, expiresAt: Date, updatedAt: Date? = nil,
                txId: String? = nil, error: String? = nil) {
        self.id = id
        self.provider = provider
        self.accountId = accountId
        self.remoteId = remoteId
        self.title = title
        self.message = message
        self.state = state
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.updatedAt = updatedAt ?? createdAt
        self.txId = txId
        self.error = error
    }

    enum CodingKeys: String, CodingKey {
        case id, provider, accountId = "account_id", remoteId = "remote_id", title, message, state
        case createdAt = "created_at", expiresAt = "expires_at", updatedAt = "updated_at", txId = "tx_id", error
    }

    // Absent optionals are written as null so clients see every documented key.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(provider, forKey: .provider)
        try c.encode(accountId, forKey: .accountId)
        try c.encode(remoteId, forKey: .remoteId)
        try c.encode(title, forKey: .title)
        try c.encode(message, forKey: .message)
        try c.encode(state, forKey: .state)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(expiresAt, forKey: .expiresAt)
        try c.encode(updatedAt, forKey: .updatedAt)
        try c.encode(txId, forKey: .txId)
        try c.encode(error, forKey: .error)
    }
}

/// What a status push says about a request this device made.
public struct TwoFactorRequestUpdate: Sendable, Equatable {
    public var provider: Provider
    public var accountId: String
    public var remoteId: String
    /// `approved` or `denied`.
    public var state: TwoFactorRequestState
    public var txId: String?

    public init(provider: Provider, accountId: String, remoteId: String, state: TwoFactorRequestState, txId: String?) {
        self.provider = provider
        self.accountId = accountId
        self.remoteId = remoteId
        self.state = state
        self.txId = txId
    }
}
