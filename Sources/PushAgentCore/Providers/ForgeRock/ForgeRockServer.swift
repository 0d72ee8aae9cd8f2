import Foundation

/// AM's side of the exchange, small enough to live next to the agent's side: pushsim plays AM with it, and tests
/// check one side against the other.
public enum ForgeRockServer {
    public struct Refusal: Error, Equatable, CustomStringConvertible {
        public var message: String
        public init(message: String) { self.message = message }
        public var description: String { message }
    }

    /// The claims of a push as AM writes them (all strings; `i` in epoch milliseconds).
    public static func notificationClaims(
        challenge: Data, mechanismUid: String, ttlSeconds: Int = 120, cookie: String?, issuedAt: Date,
        pushType: ForgeRockNotification.PushType = .default, numbers: [String]? = nil, message: String? = nil,
        contextInfo: String? = nil, userId: String? = nil
    ) -> ForgeRockNotificationClaims {
        ForgeRockNotificationClaims(
            challenge: challenge.standardBase64, ttl: String(ttlSeconds), mechanismUid: mechanismUid,
            cookie: cookie.map { Data($0.utf8).standardBase64 },
            issuedAtMillis: String(Int64((issuedAt.timeIntervalSince1970 * 1000).rounded())),
            pushType: pushType.rawValue, numbers: numbers?.joined(separator: ","), message: message,
            contextInfo: contextInfo, userId: userId)
    }

    public static func signNotification(_ claims: ForgeRockNotificationClaims, secret: Data) async throws -> String {
        try await HS256.sign(claims, key: secret)
    }

    /// As AM checks a registration: HS256 under the enrollment's secret, `response` = HMAC(secret, its challenge).
    public static func verifyRegistration(_ jwt: String, secret: Data, challenge: Data) async throws(Refusal)
        -> ForgeRockRegistrationClaims {
        let claims = try await verified(jwt, secret: secret, as: ForgeRockRegistrationClaims.self)
        try check(response: claims.response, secret: secret, challenge: challenge)
        return claims
    }

    /// As AM checks an answer: HS256 under the mechanism's secret, `response` = HMAC(secret, the push's challenge).
    public static func verifyAnswer(_ jwt: String, secret: Data, challenge: Data) async throws(Refusal)
        -> ForgeRockAnswerClaims {
        let claims = try await verified(jwt, secret: secret, as: ForgeRockAnswerClaims.self)
        try check(response: claims.response, secret: secret, challenge: challenge)
        return claims
    }

    /// As AM checks a token update: HS256 under the mechanism's secret, for the mechanism the body names.
    public static func verifyTokenUpdate(_ body: ForgeRockTokenUpdate.Body, secret: Data) async throws(Refusal)
        -> ForgeRockTokenUpdateClaims {
        let claims = try await verified(body.jwt, secret: secret, as: ForgeRockTokenUpdateClaims.self)
        guard claims.mechanismUid == body.mechanismUid else {
            throw Refusal(message: "the JWT is for mechanism '\(claims.mechanismUid)', the body names '\(body.mechanismUid)'")
        }
        guard !claims.deviceId.isEmpty else { throw Refusal(message: "the new push token (deviceId) is empty") }
        return claims
    }

    private static func verified<Claims: Codable & Sendable>(_ jwt: String, secret: Data, as type: Claims.Type)
        async throws(Refusal) -> Claims {
        do {
            return try await HS256.verify(jwt, key: secret, as: type)
        } catch {
            throw Refusal(message: error.description)
        }
    }

    private static func check(response: String, secret: Data, challenge: Data) throws(Refusal) {
        guard ForgeRockChallenge.isValid(response: response, secret: secret, challenge: challenge) else {
            throw Refusal(message: "the challenge response does not match")
        }
    }
}
