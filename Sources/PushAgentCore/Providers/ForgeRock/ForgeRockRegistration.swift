import Foundation

/// Registering the agent with AM after reading its QR code (protocols.md §1.2).
public enum ForgeRockRegistration {
    /// The POST to the URI's `r`. `mechanismUid` is a fresh UUID the agent keeps in its `ForgeRockCredentials`;
    /// `deviceToken` is the push token AM will send to.
    public static func request(uri: ForgeRockEnrollmentURI, mechanismUid: String, deviceToken: String,
                               deviceName: String) async throws -> OutboundRequest {
        let claims = ForgeRockRegistrationClaims(
            deviceId: deviceToken, deviceName: deviceName, mechanismUid: mechanismUid,
            response: ForgeRockChallenge.response(secret: uri.sharedSecret, challenge: uri.challenge))
        let jwt = try await HS256.sign(claims, key: uri.sharedSecret)
        return try ForgeRockHTTP.post(to: uri.registrationURL, messageId: uri.registrationMessageId, jwt: jwt,
                                      cookie: uri.cookie)
    }
}
