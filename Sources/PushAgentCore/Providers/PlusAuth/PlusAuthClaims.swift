import Foundation

/// The JSON exchanged with PlusAuth (protocols.md §2.2–2.4), shared by the agent and the server side (pushsim), so
/// both read and write one definition of the wire.

/// The `context` JWT of a push (server → device), signed with the account's key. Every member is optional here;
/// `PlusAuthPush` decides what a usable context needs. Missing and `null` read the same.
public struct PlusAuthContextClaims: Codable, Sendable, Equatable {
    /// Seconds since the epoch (may be fractional).
    public var exp: Double?
    public var iat: Double?
    /// Names this sign-in; the bearer of the resolve request.
    public var contextToken: String?
    public var resolveURL: String?
    public var settings: Settings?
    /// `{application, ip, user_identifier, agent {…}, location {…}}`, kept as JSON: it is only shown, and a
    /// surprising shape in it must not cost the user the sign-in.
    public var info: JSONValue?
    /// `code` (pick the number shown at sign-in) or `prompt` (approve or deny).
    public var type: String?
    /// The choices of a `code` context.
    public var values: [String]?

    public struct Settings: Codable, Sendable, Equatable {
        /// The tenant's "log out when the SIM changes"; here: when the machine's identity changes.
        public var bindSim: Bool?

        public init(bindSim: Bool?) { self.bindSim = bindSim }

        enum CodingKeys: String, CodingKey { case bindSim = "bind_sim" }
    }

    public init(exp: Double? = nil, iat: Double? = nil, contextToken: String? = nil, resolveURL: String? = nil,
                settings: Settings? = nil, info: JSONValue? = nil, type: String? = nil, values: [String]? = nil) {
        self.exp = exp
        self.iat = iat
        self.contextToken = contextToken
        self.resolveURL = resolveURL
        self.settings = settings
        self.info = info
        self.type = type
        self.values = values
    }

    enum CodingKeys: String, CodingKey {
        case exp, iat, contextToken = "context_token", resolveURL = "resolve_url", settings, info, type, values
    }
}

/// The device's answer (device → server), signed with the account's key.
public struct PlusAuthAnswerClaims: Codable, Sendable, Equatable {
    /// Not in PlusAuth's docs (protocols.md §2.6.6): sent so the answer names the sign-in it is for.
    public var contextToken: String?
    public var iat: Int64?
    /// `code`: the value the user picked.
    public var selectedValue: String?
    /// `prompt`: `accepted` or `rejected`.
    public var response: String?
    /// On rejection: `ignore` or `fraud_suspicion`.
    public var rejectReason: String?

    enum CodingKeys: String, CodingKey {
        case contextToken = "context_token", iat, selectedValue = "selected_value", response
        case rejectReason = "reject_reason"
    }
}

/// `POST {enrollment_url}` body.
public struct PlusAuthEnrollmentBody: Codable, Sendable, Equatable {
    public var publicKey: PlusAuthJWK
    public var privateKey: PlusAuthJWK
    public var deviceIdentifier: String
    public var credentials: PushCredentials

    /// Where the server sends pushes: `service` is `fcm` (protocols.md §2.6.5), `device_token` the relay's token.
    public struct PushCredentials: Codable, Sendable, Equatable {
        public var service: String
        public var deviceToken: String

        enum CodingKeys: String, CodingKey { case service, deviceToken = "device_token" }
    }

    enum CodingKeys: String, CodingKey {
        case publicKey = "public_key", privateKey = "private_key", deviceIdentifier = "device_identifier", credentials
    }
}

/// `POST {resolve_url}` body.
public struct PlusAuthResolveBody: Codable, Sendable, Equatable {
    /// The device's answer JWT.
    public var context: String
    public var deviceIdentifier: String

    enum CodingKeys: String, CodingKey { case context, deviceIdentifier = "device_identifier" }
}
