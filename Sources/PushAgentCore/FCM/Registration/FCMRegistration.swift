import Crypto
import Foundation

/// Everything a completed registration holds: the GCM device MCS logs in as, the app instance, the installation,
/// the web-push keys and the FCM token providers send to. All of it stays on this machine, sealed in the store.
public struct FCMRegistration: Sendable, Codable, Equatable {
    /// The app profile it was made for; another profile (or a changed one) needs a registration of its own.
    public var app: FirebaseAppProfile
    public var device: GCMDevice
    /// `wp:<bundle>#<uuid>`: data messages name it, so a message for another registration is recognized.
    public var subtype: String
    public var gcmToken: String
    public var installation: FirebaseInstallation
    public var privateKey: Data
    public var authSecret: Data
    public var token: String
    public var registeredAt: Date

    public init(app: FirebaseAppProfile, device: GCMDevice, subtype: String, gcmToken: String,
                installation: FirebaseInstallation, keys: WebPushKeys, token: String, registeredAt: Date) {
        self.app = app
        self.device = device
        self.subtype = subtype
        self.gcmToken = gcmToken
        self.installation = installation
        privateKey = keys.privateKey.rawRepresentation
        authSecret = keys.authSecret
        self.token = token
        self.registeredAt = registeredAt
    }

    public func keys() throws -> WebPushKeys {
        WebPushKeys(privateKey: try P256.KeyAgreement.PrivateKey(rawRepresentation: privateKey), authSecret: authSecret)
    }

    public static func newSubtype() -> String { "wp:receiver.push.com#\(UUID().uuidString.lowercased())" }
}
