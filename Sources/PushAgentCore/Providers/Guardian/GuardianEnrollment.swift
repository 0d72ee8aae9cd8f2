import Foundation

/// Enrolling the agent with Guardian after reading its QR code (protocols.md §10.2).
public enum GuardianEnrollment {
    /// `push_credentials.service` for FCM tokens, the relay's among them (the relay speaks FCM's send API).
    public static let pushService = "GCM"

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case unreadableReply(String)
        case missingField(String)
        case badTOTP(String)

        public var description: String {
            switch self {
            case .unreadableReply(let why): "Guardian's enrollment reply is not the expected JSON: \(why)"
            case .missingField(let name): "Guardian's enrollment reply has no '\(name)'"
            case .badTOTP(let why): "Guardian's enrollment reply has unusable TOTP settings: \(why)"
            }
        }
    }

    /// `POST <api>/api/enroll` with `Authorization: Ticket id="<enrollment_tx_id>"`, the device's id and name,
    /// its push token and the public half of its key.
    public static func request(uri: GuardianEnrollmentURI, key: GuardianDeviceKey, deviceIdentifier: String,
                               deviceName: String, pushToken: String) throws -> OutboundRequest {
        let body = GuardianEnrollmentBody(
            identifier: deviceIdentifier, name: deviceName,
            pushCredentials: GuardianPushCredentials(service: pushService, token: pushToken),
            publicKey: try key.publicJWK())
        return try GuardianHTTP.request("POST", GuardianAPIBase.endpoint(uri.apiBaseURL, "enroll"),
                                        authorization: #"Ticket id="\#(uri.enrollmentTransactionId)""#, json: body)
    }

    /// The credentials from a 2xx reply. `id`, `user_id` and `token` are required (the agent uses them);
    /// Android also requires `url` and `issuer`, which the agent does not use. The reply's `totp` replaces the
    /// QR code's: it is what the server will check codes against.
    public static func credentials(reply body: Data, uri: GuardianEnrollmentURI, key: GuardianDeviceKey,
                                   deviceIdentifier: String) throws(Failure) -> GuardianCredentials {
        let reply: GuardianEnrollmentReply
        do {
            reply = try JSONDecoder().decode(GuardianEnrollmentReply.self, from: body)
        } catch {
            throw .unreadableReply("\(error)")
        }
        func required(_ value: String?, _ name: String) throws(Failure) -> String {
            guard let value, !value.isEmpty else { throw .missingField(name) }
            return value
        }
        return GuardianCredentials(
            enrollmentId: try required(reply.id, "id"), deviceIdentifier: deviceIdentifier,
            deviceToken: try required(reply.token, "token"), userId: try required(reply.userId, "user_id"),
            apiBaseURL: uri.apiBaseURL, privateKeyDER: key.derRepresentation,
            totp: try reply.totp.map { totp throws(Failure) in try parameters(totp) } ?? uri.totp)
    }

    /// `{secret (base32), algorithm, digits, period}`, the Key URI defaults (SHA1, 6, 30) where one is absent.
    static func parameters(_ totp: GuardianEnrollmentReply.TOTP) throws(Failure) -> TOTPParameters {
        guard let text = totp.secret, let secret = Base32.decode(text), !secret.isEmpty else {
            throw .badTOTP("'secret' is missing or not base32")
        }
        guard let algorithm = OTPAlgorithm(rawValue: (totp.algorithm ?? "sha1").lowercased()) else {
            throw .badTOTP("'algorithm' must be SHA1, SHA256 or SHA512")
        }
        do {
            return try TOTPParameters(secret: secret, algorithm: algorithm, digits: totp.digits ?? 6,
                                      period: totp.period ?? 30)
        } catch {
            throw .badTOTP("\(error)")
        }
    }
}
