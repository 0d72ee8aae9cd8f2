import Foundation

/// What the agent keeps per Guardian account (in the store, sealed): who the device is to Guardian, its key and
/// where its API is.
public struct GuardianCredentials: Codable, Sendable, Equatable {
    /// `id` of the enrollment's reply (`dev_…`); pushes name it in `dai`; the device-account calls' path and `iss`.
    public var enrollmentId: String
    /// The `identifier` the agent enrolled with; every answer's `iss`.
    public var deviceIdentifier: String
    /// `token` of the reply: the device-account calls' older bearer (§10.5).
    public var deviceToken: String
    /// `user_id` of the reply: the device-account JWT's `sub`.
    public var userId: String
    /// The API base every call goes to (`/appliance-mfa` rule applied), never a push's `sh`.
    public var apiBaseURL: String
    /// PKCS#1 DER of the device's RSA key.
    public var privateKeyDER: Data
    /// Offline codes: the reply's `totp`, else the QR code's; nil when neither had any.
    public var totp: TOTPParameters?

    public func deviceKey() throws(GuardianDeviceKey.Failure) -> GuardianDeviceKey {
        try GuardianDeviceKey(derRepresentation: privateKeyDER)
    }
}
