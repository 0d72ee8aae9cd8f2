import Foundation

/// An enrolled account as the control API shows it. Secrets live in the store, never here.
public struct Account: Codable, Sendable, Equatable, Identifiable {
    public var id: String
    public var provider: Provider
    public var issuer: String
    public var name: String
    public var createdAt: Date
    /// The account's URI carried TOTP parameters, so `GET /v1/accounts/{id}/code` works.
    public var hasTOTP: Bool
    /// The device's push token changed since the provider last heard of it.
    public var needsTokenUpdate: Bool

    public init(id: String, provider: Provider, issuer: String, name: String, createdAt: Date,
                hasTOTP: Bool, needsTokenUpdate: Bool = false) {
        self.id = id
        self.provider = provider
        self.issuer = issuer
        self.name = name
        self.createdAt = createdAt
        self.hasTOTP = hasTOTP
        self.needsTokenUpdate = needsTokenUpdate
    }

    enum CodingKeys: String, CodingKey {
        case id, provider, issuer, name, createdAt = "created_at", hasTOTP = "has_totp"
        case needsTokenUpdate = "needs_token_update"
    }
}
