import Foundation

/// Enrolling the agent with PlusAuth after reading its QR code (protocols.md §2.2).
public enum PlusAuthEnrollment {
    /// `credentials.service`: the relay speaks FCM's send API, and `fcm` is the value PlusAuth's sample sends
    /// (the prose says "gcm or apns", protocols.md §2.6.5).
    public static let pushService = "fcm"

    /// `POST {enrollment_url}` with `Authorization: Bearer {context_token}`, both halves of the key pair, the
    /// device id and the push token.
    public static func request(uri: PlusAuthEnrollmentURI, privateKey: PlusAuthJWK, deviceIdentifier: String,
                               deviceToken: String) throws -> OutboundRequest {
        let body = PlusAuthEnrollmentBody(
            publicKey: privateKey.publicKey, privateKey: privateKey, deviceIdentifier: deviceIdentifier,
            credentials: .init(service: pushService, deviceToken: deviceToken))
        return try PlusAuthHTTP.post(body, to: uri.enrollmentURL, bearer: uri.contextToken)
    }
}

/// How the device talks to PlusAuth's push-authenticator endpoints.
enum PlusAuthHTTP {
    static let userAgent = "pushagent (Linux)"

    static func post(_ body: some Encodable, to url: String, bearer: String) throws -> OutboundRequest {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return OutboundRequest(method: "POST", url: url, headers: [
            .init("Content-Type", "application/json"), .init("User-Agent", userAgent),
            .init("Authorization", "Bearer \(bearer)"),
        ], body: try encoder.encode(body))
    }
}
