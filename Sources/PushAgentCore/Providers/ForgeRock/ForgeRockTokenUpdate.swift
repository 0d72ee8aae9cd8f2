import Foundation

/// Telling AM the device's new push token (protocols.md §1.5): without it, AM keeps pushing to a token the relay
/// no longer knows, and every sign-in of the account waits for a push that never comes.
public enum ForgeRockTokenUpdate {
    /// `{"mechanismUid", "username"?, "jwt"}`: unlike the other calls, no message id (nothing AM sent is answered).
    public struct Body: Codable, Sendable, Equatable {
        public var mechanismUid: String
        public var username: String?
        public var jwt: String
    }

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case noRegistrationAction(String)

        public var description: String {
            switch self {
            case .noRegistrationAction(let url):
                "the account's registration URL \(url) has no _action=register to turn into _action=refresh"
            }
        }
    }

    /// The POST to the registration URL with `_action=refresh` (Android `PushMechanism.getUpdateEndpoint`).
    public static func request(credentials: ForgeRockCredentials, newToken: String, deviceName: String) async throws
        -> OutboundRequest {
        let claims = ForgeRockTokenUpdateClaims(deviceId: newToken, deviceName: deviceName,
                                                mechanismUid: credentials.mechanismUid)
        let jwt = try await HS256.sign(claims, key: credentials.sharedSecret)
        let body = Body(mechanismUid: credentials.mechanismUid, username: credentials.userId, jwt: jwt)
        // No cookie: it routes answers to the AM server holding a pending push, and a token update answers none.
        return try ForgeRockHTTP.post(to: try endpoint(registrationURL: credentials.registrationURL), body: body,
                                      cookie: nil)
    }

    public static func endpoint(registrationURL: String) throws(Failure) -> String {
        guard registrationURL.contains("_action=register") else { throw .noRegistrationAction(registrationURL) }
        return registrationURL.replacingOccurrences(of: "_action=register", with: "_action=refresh")
    }
}
