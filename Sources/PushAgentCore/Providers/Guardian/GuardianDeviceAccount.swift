import Foundation

/// Changing or removing the enrollment (protocols.md §10.5): `PATCH` and `DELETE` of
/// `<api>/api/device-accounts/<enrollment id>`.
public enum GuardianDeviceAccount {
    /// Both SDKs give the device-account JWT two hours.
    public static let lifetime: Int64 = 2 * 3600

    /// How the call proves it is the device. Both SDKs now sign a JWT and deprecate the device token;
    /// guardian-bash still sends the token, so it stays as the fallback.
    public enum Authorization: Sendable, Equatable {
        case signedJWT
        case deviceToken
    }

    /// The push token changed: `{"push_credentials": {"service": "GCM", "token": …}}` and nothing else.
    public static func updatePushToken(credentials: GuardianCredentials, newToken: String,
                                       authorization: Authorization = .signedJWT, at now: Date) async throws
        -> OutboundRequest {
        let body = GuardianDeviceUpdateBody(
            pushCredentials: GuardianPushCredentials(service: GuardianEnrollment.pushService, token: newToken))
        let bearer = try await header(authorization, credentials, at: now)
        return try GuardianHTTP.request("PATCH", url(credentials), authorization: bearer, json: body)
    }

    /// Unenrolling: the account disappears from the user's Guardian devices. guardian-bash treats 404 as done.
    public static func delete(credentials: GuardianCredentials, authorization: Authorization = .signedJWT,
                              at now: Date) async throws -> OutboundRequest {
        GuardianHTTP.request("DELETE", url(credentials),
                             authorization: try await header(authorization, credentials, at: now))
    }

    /// `iss` = the enrollment id, `sub` = the user id, `aud` = the collection's URL (Android `createBasicJWT`).
    public static func claims(credentials: GuardianCredentials, at now: Date) -> GuardianDeviceAccountClaims {
        let iat = Int64(now.timeIntervalSince1970.rounded(.down))
        return GuardianDeviceAccountClaims(iat: iat, exp: iat + lifetime, aud: collectionURL(credentials),
                                           iss: credentials.enrollmentId, sub: credentials.userId)
    }

    private static func header(_ authorization: Authorization, _ credentials: GuardianCredentials, at now: Date)
        async throws -> String {
        switch authorization {
        case .deviceToken:
            return "Bearer \(credentials.deviceToken)"
        case .signedJWT:
            return "Bearer " + (try await GuardianJWS.sign(claims(credentials: credentials, at: now),
                                                           key: credentials.deviceKey()))
        }
    }

    static func collectionURL(_ credentials: GuardianCredentials) -> String {
        GuardianAPIBase.endpoint(credentials.apiBaseURL, "device-accounts")
    }

    static func url(_ credentials: GuardianCredentials) -> String {
        // Enrollment ids are `dev_` and letters; escaping keeps any other id inside its path segment.
        let segment = credentials.enrollmentId.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed
            .subtracting(CharacterSet(charactersIn: "/"))) ?? credentials.enrollmentId
        return collectionURL(credentials) + "/" + segment
    }
}
