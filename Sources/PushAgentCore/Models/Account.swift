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
    /// Why the provider has not been told yet: its last failure (retried), or why it cannot be told (the user must
    /// enroll the account again). Nil while the update is merely pending.
    public var tokenUpdateProblem: String?
    /// Until when its pushes are denied unseen (after a fraud report, or `pushctl mute`); nil when not muted.
    public var mutedUntil: Date?
    public var muteReason: String?
    /// The Firebase app whose FCM token its provider pushes to (docs/fcm.md); nil: the relay's token.
    public var fcmApp: String?

    /// The most bytes its issuer, name or lookup key may have: what an enrollment URI can carry, so every enrolled
    /// account fits, and a restored one cannot be made of megabytes.
    public static let maximumFieldBytes = EnrollmentURIParts.maximumBytes

    /// How its pushes reach this machine, as `pushctl accounts` shows it.
    public var transport: String { fcmApp.map { "fcm (\($0))" } ?? "relay" }

    public init(id: String, provider: Provider, issuer: String, name: String, createdAt: Date,
                hasTOTP: Bool, needsTokenUpdate: Bool = false, tokenUpdateProblem: String? = nil,
                mutedUntil: Date? = nil, muteReason: String? = nil, fcmApp: String? = nil) {
        self.id = id
        self.provider = provider
        self.issuer = issuer
        self.name = name
        self.createdAt = createdAt
        self.hasTOTP = hasTOTP
        self.needsTokenUpdate = needsTokenUpdate
        self.tokenUpdateProblem = tokenUpdateProblem
        self.mutedUntil = mutedUntil
        self.muteReason = muteReason
        self.fcmApp = fcmApp
    }

    public func isMuted(at now: Date) -> Bool { mutedUntil.map { $0 > now } ?? false }

    enum CodingKeys: String, CodingKey {
        case id, provider, issuer, name, createdAt = "created_at", hasTOTP = "has_totp"
        case needsTokenUpdate = "needs_token_update", tokenUpdateProblem = "token_update_problem"
        case mutedUntil = "muted_until", muteReason = "mute_reason", fcmApp = "fcm_app"
    }

    /// Writes `token_update_problem: null` rather than leaving it out: clients see every documented key.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(provider, forKey: .provider)
        try c.encode(issuer, forKey: .issuer)
        try c.encode(name, forKey: .name)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(hasTOTP, forKey: .hasTOTP)
        try c.encode(needsTokenUpdate, forKey: .needsTokenUpdate)
        try c.encode(tokenUpdateProblem, forKey: .tokenUpdateProblem)
        try c.encode(mutedUntil, forKey: .mutedUntil)
        try c.encode(muteReason, forKey: .muteReason)
        try c.encode(fcmApp, forKey: .fcmApp)
    }
}
