import Foundation

/// The JSON exchanged with Guardian's device API (protocols.md §10.2–9.5), shared by the agent and the
/// server side (pushsim).

/// `push_credentials`: where Guardian sends pushes. `GCM` for FCM tokens (Android), `APNS` for Apple's.
public struct GuardianPushCredentials: Codable, Sendable, Equatable {
    public var service: String
    public var token: String
}

/// `POST <api>/api/enroll` body.
public struct GuardianEnrollmentBody: Codable, Sendable, Equatable {
    /// The device's own id; it becomes the `iss` of every answer.
    public var identifier: String
    /// Shown in the user's and the tenant admin's device lists.
    public var name: String
    public var pushCredentials: GuardianPushCredentials
    public var publicKey: GuardianJWK

    enum CodingKeys: String, CodingKey {
        case identifier, name, pushCredentials = "push_credentials", publicKey = "public_key"
    }
}

/// The enrollment's reply: `{id, url, issuer, user_id, token, totp?, recovery_code?}`. Optional here; the agent
/// decides what it needs (`GuardianEnrollment.credentials`).
public struct GuardianEnrollmentReply: Codable, Sendable, Equatable {
    /// The enrollment (device account) id, `dev_…`: pushes name it in `dai`.
    public var id: String?
    public var url: String?
    public var issuer: String?
    public var userId: String?
    /// The device token: the older `Authorization: Bearer` of the device-account calls.
    public var token: String?
    public var totp: TOTP?
    public var recoveryCode: String?

    public struct TOTP: Codable, Sendable, Equatable {
        public var secret: String?
        public var algorithm: String?
        public var digits: Int?
        public var period: Int?

        public init(secret: String?, algorithm: String?, digits: Int?, period: Int?) {
            self.secret = secret
            self.algorithm = algorithm
            self.digits = digits
            self.period = period
        }
    }

    public init(id: String?, url: String?, issuer: String?, userId: String?, token: String?, totp: TOTP? = nil,
                recoveryCode: String? = nil) {
        self.id = id
        self.url = url
        self.issuer = issuer
        self.userId = userId
        self.token = token
        self.totp = totp
        self.recoveryCode = recoveryCode
    }

    enum CodingKeys: String, CodingKey {
        case id, url, issuer, userId = "user_id", token, totp, recoveryCode = "recovery_code"
    }
}

/// The answer JWT's claims (device → Guardian).
public struct GuardianAnswerClaims: Codable, Sendable, Equatable {
    public var iat: Int64
    /// `iat` + 30 s in both SDKs.
    public var exp: Int64
    /// `<api>/api/resolve-transaction`.
    public var aud: String
    /// The device identifier sent at enrollment (not the enrollment id).
    public var iss: String
    /// The push's challenge `c`.
    public var sub: String
    /// Always `push`.
    public var method = "push"
    public var accepted: Bool
    /// Only on a rejection, and only when there is a reason.
    public var reason: String?

    enum CodingKeys: String, CodingKey {
        case iat, exp, aud, iss, sub, method = "auth0_guardian_method", accepted = "auth0_guardian_accepted"
        case reason = "auth0_guardian_reason"
    }
}

/// The device-account calls' JWT (Android `createBasicJWT`, iOS `BasicClaimSet`).
public struct GuardianDeviceAccountClaims: Codable, Sendable, Equatable {
    public var iat: Int64
    /// `iat` + 2 h in both SDKs.
    public var exp: Int64
    /// `<api>/api/device-accounts`, without the id.
    public var aud: String
    /// The enrollment id.
    public var iss: String
    /// The user id of the enrollment's reply.
    public var sub: String
}

/// `POST <api>/api/resolve-transaction` body.
public struct GuardianResolveBody: Codable, Sendable, Equatable {
    public var challengeResponse: String

    public init(challengeResponse: String) { self.challengeResponse = challengeResponse }

    enum CodingKeys: String, CodingKey { case challengeResponse = "challenge_response" }
}

/// `PATCH <api>/api/device-accounts/<id>` body; absent members are left out and stay as they are.
public struct GuardianDeviceUpdateBody: Codable, Sendable, Equatable {
    public var identifier: String?
    public var name: String?
    public var pushCredentials: GuardianPushCredentials?

    enum CodingKeys: String, CodingKey { case identifier, name, pushCredentials = "push_credentials" }
}
