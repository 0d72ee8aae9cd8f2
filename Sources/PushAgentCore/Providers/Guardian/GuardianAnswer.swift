import Foundation

/// Answering a Guardian push (protocols.md §10.4): an RS256 JWT under the device key, posted to the
/// account's own API with the push's transaction token as bearer.
public enum GuardianAnswer {
    /// Both SDKs give the answer JWT thirty seconds.
    public static let lifetime: Int64 = 30

    /// `auth0_guardian_reason` for a rejection. The SDKs send whatever text the app gives, or none; the agent says
    /// `fraud` only when the user reports fraud and otherwise gives no reason, as the SDKs' plain reject does.
    static func reason(_ reason: DenyReason?) -> String? {
        reason == .fraud ? "fraud" : nil
    }

    public static func claims(for notification: GuardianNotification, credentials: GuardianCredentials,
                              decision: AnswerDecision, at now: Date) -> GuardianAnswerClaims {
        let iat = Int64(now.timeIntervalSince1970.rounded(.down))
        var claims = GuardianAnswerClaims(
            iat: iat, exp: iat + lifetime, aud: resolveURL(credentials), iss: credentials.deviceIdentifier,
            sub: notification.challenge, accepted: true)
        if case .deny(let why) = decision {
            claims.accepted = false
            claims.reason = reason(why)
        }
        return claims
    }

    /// `POST <api>/api/resolve-transaction`, `Authorization: Bearer <txtkn>`, `{"challenge_response": <JWT>}`.
    /// Guardian pushes ask nothing but yes or no, so a number is refused before anything is signed.
    public static func request(notification: GuardianNotification, credentials: GuardianCredentials,
                               decision: AnswerDecision, at now: Date) async throws -> OutboundRequest {
        if case .approve(let number?) = decision { throw Refusal.numberOnPrompt(number) }
        let answer = claims(for: notification, credentials: credentials, decision: decision, at: now)
        let jwt = try await GuardianJWS.sign(answer, key: credentials.deviceKey())
        return try GuardianHTTP.request("POST", resolveURL(credentials),
                                        authorization: "Bearer \(notification.transactionToken)",
                                        json: GuardianResolveBody(challengeResponse: jwt))
    }

    public enum Refusal: Error, Equatable, CustomStringConvertible {
        case numberOnPrompt(String)

        public var description: String {
            switch self {
            case .numberOnPrompt: "this sign-in is approved or denied; it takes no number"
            }
        }
    }

    static func resolveURL(_ credentials: GuardianCredentials) -> String {
        GuardianAPIBase.endpoint(credentials.apiBaseURL, "resolve-transaction")
    }
}
