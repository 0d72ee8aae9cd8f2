import Crypto
import Foundation

/// Seals the store's secrets with AES-256-GCM under the sealing key. Each value is bound to where it is stored
/// (`context`, the authenticated data), so a sealed value copied to another row or column does not open.
/// Layout: a version byte (1), then swift-crypto's combined box: 12-byte nonce, ciphertext, 16-byte tag.
struct SecretSealer: Sendable {
    static let version: UInt8 = 1
    let key: SealingKey

    func seal(_ plaintext: Data, context: String) throws -> Data {
        let box = try AES.GCM.seal(plaintext, using: key.key, authenticating: Data(context.utf8))
        guard let combined = box.combined else { throw SealingError("AES-GCM gave no combined box") }
        return Data([Self.version]) + combined
    }

    func open(_ sealed: Data, context: String) throws -> Data {
        guard sealed.first == Self.version,
              let box = try? AES.GCM.SealedBox(combined: sealed.dropFirst()),
              let plaintext = try? AES.GCM.open(box, using: key.key, authenticating: Data(context.utf8)) else {
            throw SealingError("\(context) does not open with the sealing key (\(key.source.rawValue)): the store was sealed with another key or changed")
        }
        return plaintext
    }

    /// Text columns (the relay read secret) hold the base64 of the sealed bytes.
    func seal(_ text: String, context: String) throws -> String {
        try seal(Data(text.utf8), context: context).base64EncodedString()
    }

    func open(_ text: String, context: String) throws -> String {
        guard let sealed = Data(base64Encoded: text) else {
            throw SealingError("\(context) is not sealed: the store was changed outside pushagentd")
        }
        return String(decoding: try open(sealed, context: context), as: UTF8.self)
    }
}

/// Where each secret lives, the authenticated data of its sealed value.
enum SealedColumn {
    static let deviceSecret = "device.secret"
    static let signingKey = "signing_key.private_key"
    static func credentials(account id: String) -> String { "account.credentials/\(id)" }
    static func totp(account id: String) -> String { "account.totp/\(id)" }
    static func fcmRegistration(app name: String) -> String { "fcm_registration.sealed/\(name)" }
    static func webPushSubscription(_ relayID: String) -> String { "webpush_subscriptions.sealed/\(relayID)" }
}
