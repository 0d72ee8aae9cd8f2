import Foundation

/// What the agent keeps per privacyIDEA token to poll, verify and answer. Holds the device's private key: it lives
/// only in the 0600 store.
public struct PrivacyIDEACredentials: Codable, Sendable, Equatable {
    public var serial: String
    /// The enrollment `url`: polls and token updates go here.
    public var url: String
    public var sslVerify: Bool
    public var pollOnly: Bool
    /// The enrollment URI did not say whether the server pushes (eduMFA never writes `poll_only`): the token is
    /// polled on the schedule besides its pushes. Absent from stores written before it existed.
    public var pollAlso: Bool?
    /// The device's private key, DER.
    public var devicePrivateKey: Data
    /// The server's public key, PKCS#1 DER.
    public var serverPublicKey: Data
    /// The push token the server sends to (`no_firebase_token` for poll-only tokens).
    public var pushToken: String

    /// Whether the agent polls the token on the schedule, not only on `pushctl refresh`.
    public var pollsOnSchedule: Bool { pollOnly || pollAlso == true }

    public func deviceKey() throws -> PrivacyIDEADeviceKey { try PrivacyIDEADeviceKey(derRepresentation: devicePrivateKey) }

    public func serverKey() throws(PrivacyIDEAServerKey.Refusal) -> PrivacyIDEAServerKey {
        try PrivacyIDEAServerKey(der: serverPublicKey)
    }
}

// In an extension, so that Swift still writes the memberwise initialiser (this module's and the tests').
extension PrivacyIDEACredentials {
    /// What enrolling `uri` leaves the agent with: the device key it made, the server's key from step 2 and the push
    /// token it gave the server (nil for a poll-only token). A URI that does not say whether the server pushes
    /// (eduMFA never writes `poll_only`) is polled on the schedule besides.
    public init(uri: PrivacyIDEAEnrollmentURI, deviceKey: PrivacyIDEADeviceKey, serverKey: PrivacyIDEAServerKey,
                pushToken: String?) {
        self.init(serial: uri.serial, url: uri.registrationURL, sslVerify: uri.sslVerify, pollOnly: uri.pollOnly,
                  pollAlso: uri.saysWhetherPollOnly ? nil : true, devicePrivateKey: deviceKey.derRepresentation,
                  serverPublicKey: serverKey.der, pushToken: pushToken ?? PrivacyIDEAEnrollment.noPushToken)
    }
}
