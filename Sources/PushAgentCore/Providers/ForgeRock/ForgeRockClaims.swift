/// The JWT claim sets exchanged with AM (protocols.md §1.2–1.4). Shared by the agent and the server side
/// (pushsim), so both read and write exactly one definition of the wire.

/// Registration (device → AM), signed with the enrollment's shared secret.
public struct ForgeRockRegistrationClaims: Codable, Sendable, Equatable {
    /// The push token AM sends through (an FCM registration token, here the relay's token).
    public var deviceId: String
    public var deviceName: String
    /// "android"/"gcm" is the only FCM combination AM is known to accept (protocols.md §1.8.4).
    public var deviceType = "android"
    public var communicationType = "gcm"
    public var mechanismUid: String
    /// base64(HMAC-SHA256(secret, registration challenge)).
    public var response: String
}

/// Approve or deny (device → AM).
public struct ForgeRockAnswerClaims: Codable, Sendable, Equatable {
    /// base64(HMAC-SHA256(secret, the notification's challenge)): proves the answer comes from the enrolled device.
    public var response: String
    /// The number the user picked, for `challenge` pushes; never sent with a deny (Android's behaviour).
    public var challengeResponse: String?
    /// A JSON boolean, present only on deny.
    public var deny: Bool?
}

/// A push notification's claims (AM → device) as they are on the wire: every claim a JSON string, so a
/// non-string value fails decoding. `ForgeRockPush.verify` turns them into a `ForgeRockNotification`.
public struct ForgeRockNotificationClaims: Codable, Sendable, Equatable {
    /// `c`: the challenge, standard base64.
    public var challenge: String?
    /// `t`: seconds.
    public var ttl: String?
    /// `u`: which mechanism (account) this is for.
    public var mechanismUid: String?
    /// `l`: base64 of the load-balancer cookie.
    public var cookie: String?
    /// `i`: creation time, epoch milliseconds.
    public var issuedAtMillis: String?
    /// `k`: `default`, `challenge` or `biometric`.
    public var pushType: String?
    /// `n`: comma-separated number choices.
    public var numbers: String?
    /// `m`: text to show.
    public var message: String?
    /// `x`: JSON text describing the sign-in.
    public var contextInfo: String?
    /// `d`: user id.
    public var userId: String?

    enum CodingKeys: String, CodingKey {
        case challenge = "c", ttl = "t", mechanismUid = "u", cookie = "l", issuedAtMillis = "i", pushType = "k"
        case numbers = "n", message = "m", contextInfo = "x", userId = "d"
    }
}

/// A new push token for a registered mechanism (device → AM, `_action=refresh`), signed with the mechanism's secret.
/// The registration's claims without the challenge response (there is no challenge to answer), plus the
/// mechanism uid, as the iOS SDK sends it.
public struct ForgeRockTokenUpdateClaims: Codable, Sendable, Equatable {
    /// The new push token.
    public var deviceId: String
    public var deviceName: String
    public var deviceType = "android"
    public var communicationType = "gcm"
    public var mechanismUid: String
}
