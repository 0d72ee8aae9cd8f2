import Foundation

/// Enrollment step 2 (protocols.md §4.2): the device sends its public key and push token, the server answers with
/// its own public key.
public enum PrivacyIDEAEnrollment {
    /// What poll-only devices send as `fbtoken` (the app's value).
    public static let noPushToken = "no_firebase_token"

    /// The form POST to the URI's `url`. `pushToken` is the relay token, or nil for a poll-only token.
    public static func request(uri: PrivacyIDEAEnrollmentURI, deviceKey: PrivacyIDEADeviceKey, pushToken: String?)
        -> OutboundRequest {
        PrivacyIDEAHTTP.post(to: uri.registrationURL, [
            ("enrollment_credential", uri.enrollmentCredential), ("serial", uri.serial),
            ("fbtoken", pushToken ?? noPushToken), ("pubkey", deviceKey.publicKeyBase64),
        ], verifyTLS: uri.sslVerify)
    }

    /// The server's key from the answer's `detail.public_key`.
    public static func serverKey(from body: Data) throws(PrivacyIDEAReplyError) -> PrivacyIDEAServerKey {
        struct Reply: Decodable {
            struct Detail: Decodable {
                var publicKey: String?
                var rolloutState: String?
                enum CodingKeys: String, CodingKey { case publicKey = "public_key", rolloutState = "rollout_state" }
            }
            var detail: Detail?
        }
        _ = try PrivacyIDEAResponse<JSONValue>.value(from: body, what: "enrollment")
        guard let text = (try? JSONDecoder().decode(Reply.self, from: body))?.detail?.publicKey else {
            throw .unreadable("enrollment: the answer has no detail.public_key (the server's key)")
        }
        do { return try PrivacyIDEAServerKey(pemBody: text) }
        catch { throw .unreadable("enrollment: \(error)") }
    }
}
