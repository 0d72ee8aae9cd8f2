import Foundation

/// What the user must do to approve: just confirm, pick the number shown at sign-in, confirm with user verification,
/// or confirm a local program's step-up request.
public enum ApprovalKind: String, Codable, Sendable {
    case prompt, number, verify, stepup
}

public enum ApprovalState: String, Codable, Sendable, CaseIterable {
    case pending, approving, approved, denying, denied, expired, failed

    public var isFinal: Bool {
        switch self {
        case .approved, .denied, .expired, .failed: true
        case .pending, .approving, .denying: false
        }
    }

    /// docs/design.md §2: pending → approving → approved|failed, pending → denying → denied|failed, pending → expired.
    public func canTransition(to next: ApprovalState) -> Bool {
        switch (self, next) {
        case (.pending, .approving), (.pending, .denying), (.pending, .expired),
             (.approving, .approved), (.approving, .failed),
             (.denying, .denied), (.denying, .failed):
            true
        default:
            false
        }
    }
}

public enum DenyReason: String, Codable, Sendable {
    case ignore, fraud
}

/// Who answered, and how; and what the provider's reply asks the user to do next.
public struct Resolution: Codable, Sendable, Equatable {
    public var byUid: UInt32?
    public var number: String?
    public var reason: DenyReason?
    /// A code to type into the sign-in screen (privacyIDEA's code-to-phone mode), with the provider's instruction.
    public var displayCode: String?
    public var displayMessage: String?
    /// Set when the agent denied it unseen (push bombing defences); `byUid` is then nil.
    public var automatic: AutomaticDenial?

    public init(byUid: UInt32?, number: String? = nil, reason: DenyReason? = nil, displayCode: String? = nil,
                displayMessage: String? = nil, automatic: AutomaticDenial? = nil) {
        self.byUid = byUid
        self.number = number
        self.reason = reason
        self.displayCode = displayCode
        self.displayMessage = displayMessage
        self.automatic = automatic
    }

    enum CodingKeys: String, CodingKey {
        case byUid = "by_uid", number, reason, displayCode = "display_code", displayMessage = "display_message"
        case automatic
    }
}

/// The sign-in being approved, as far as the provider tells it.
public struct ApprovalContext: Codable, Sendable, Equatable {
    public var app: String?
    public var user: String?
    public var ip: String?
    public var location: String?
    public var userAgent: String?
    public var raw: JSONValue?

    public init(app: String? = nil, user: String? = nil, ip: String? = nil, location: String? = nil,
                userAgent: String? = nil, raw: JSONValue? = nil) {
        self.app = app
        self.user = user
        self.ip = ip
        self.location = location
        self.userAgent = userAgent
        self.raw = raw
    }

    enum CodingKeys: String, CodingKey {
        case app, user, ip, location, userAgent = "user_agent", raw
    }
}

/// The normalized approval of docs/design.md §2, as the control API shows it.
public struct Approval: Codable, Sendable, Equatable, Identifiable {
    public var id: String
    public var provider: Provider
    public var accountId: String
    public var kind: ApprovalKind
    /// Choices for `kind == .number`. The agent never knows which one is right.
    public var numbers: [String]?
    public var title: String
    public var message: String
    public var context: ApprovalContext
    public var state: ApprovalState
    public var requestedAt: Date
    public var expiresAt: Date
    public var resolvedAt: Date?
    public var resolution: Resolution?
    public var error: String?

    public init(id: String, provider: Provider, accountId: String, kind: ApprovalKind, numbers: [String]?,
                title: String, message: String, context: ApprovalContext, state: ApprovalState,
                requestedAt: Date, expiresAt: Date, resolvedAt: Date? = nil, resolution: Resolution? = nil,
                error: String? = nil) {
        self.id = id
        self.provider = provider
        self.accountId = accountId
        self.kind = kind
        self.numbers = numbers
        self.title = title
        self.message = message
        self.context = context
        self.state = state
        self.requestedAt = requestedAt
        self.expiresAt = expiresAt
        self.resolvedAt = resolvedAt
        self.resolution = resolution
        self.error = error
    }

    public func isExpired(at now: Date) -> Bool { now >= expiresAt }

    enum CodingKeys: String, CodingKey {
        case id, provider, accountId = "account_id", kind, numbers, title, message, context, state
        case requestedAt = "requested_at", expiresAt = "expires_at", resolvedAt = "resolved_at"
        case resolution, error
    }

    // Absent optionals are written as null so clients see every documented key.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(provider, forKey: .provider)
        try c.encode(accountId, forKey: .accountId)
        try c.encode(kind, forKey: .kind)
        try c.encode(numbers, forKey: .numbers)
        try c.encode(title, forKey: .title)
        try c.encode(message, forKey: .message)
        try c.encode(context, forKey: .context)
        try c.encode(state, forKey: .state)
        try c.encode(requestedAt, forKey: .requestedAt)
        try c.encode(expiresAt, forKey: .expiresAt)
        try c.encode(resolvedAt, forKey: .resolvedAt)
        try c.encode(resolution, forKey: .resolution)
        try c.encode(error, forKey: .error)
    }
}
