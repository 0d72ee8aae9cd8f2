import Crypto
import Foundation

/// A push subscription's receiving keys (RFC 8291): the P-256 key pair whose public half and the auth secret the
/// client gave at registration. Messages are encrypted to them; only this side can read them.
public struct WebPushKeys: Sendable {
    public let privateKey: P256.KeyAgreement.PrivateKey
    /// 16 random bytes, shared with the sender only through the registration.
    public let authSecret: Data

    public static func generate() -> WebPushKeys {
        WebPushKeys(privateKey: P256.KeyAgreement.PrivateKey(),
                    authSecret: SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) })
    }

    /// The uncompressed point (65 bytes) registrations call `p256dh`.
    public var publicKey: Data { privateKey.publicKey.x963Representation }

    /// An `aes128gcm` message (RFC 8291 §4): the sender's public key is the header's key id.
    public func decrypt(aes128gcm body: Data) throws(WebPushError) -> Data {
        let header = try AES128GCMHeader(parsing: body)
        let secret = try ikm(sender: header.keyID, coding: .aes128gcm)
        let (key, nonce) = ContentCoding.keyAndNonce(secret: secret, salt: header.salt, coding: .aes128gcm)
        return try ContentCoding.aes128gcm.openRecords(header.records, key: key, nonce: nonce,
                                                       recordSize: header.recordSize)
    }

    /// An `aesgcm` message, whose salt and sender key travel beside it (FCM's `encryption: salt=…` and
    /// `crypto-key: dh=…`).
    public func decrypt(aesgcm body: Data, salt: Data, senderPublicKey: Data, recordSize: Int = 4096)
        throws(WebPushError) -> Data {
        guard salt.count == ContentCoding.saltLength else { throw .malformed("the salt is \(salt.count) bytes, not 16") }
        let secret = try ikm(sender: senderPublicKey, coding: .aesgcm)
        let context = Self.aesgcmContext(receiver: publicKey, sender: senderPublicKey)
        let (key, nonce) = ContentCoding.keyAndNonce(secret: secret, salt: salt, coding: .aesgcm, context: context)
        return try ContentCoding.aesgcm.openRecords(body, key: key, nonce: nonce, recordSize: recordSize)
    }

    /// The input keying material: the ECDH secret with the sender's key, mixed with the auth secret.
    private func ikm(sender: Data, coding: ContentCoding) throws(WebPushError) -> SymmetricKey {
        let senderKey: P256.KeyAgreement.PublicKey
        do { senderKey = try P256.KeyAgreement.PublicKey(x963Representation: sender) } catch {
            throw .malformed("the sender's key (\(sender.count) bytes) is not a P-256 point")
        }
        let shared: SharedSecret
        do { shared = try privateKey.sharedSecretFromKeyAgreement(with: senderKey) } catch {
            throw .undecryptable("no shared secret with the sender's key")
        }
        return Self.mix(shared, authSecret: authSecret, receiver: publicKey, sender: sender, coding: coding)
    }

    static func mix(_ shared: SharedSecret, authSecret: Data, receiver: Data, sender: Data, coding: ContentCoding)
        -> SymmetricKey {
        let info = coding == .aes128gcm ? Data("WebPush: info\0".utf8) + receiver + sender
            : Data("Content-Encoding: auth\0".utf8)
        return shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: authSecret, sharedInfo: info, outputByteCount: 32)
    }

    static func aesgcmContext(receiver: Data, sender: Data) -> Data {
        func lengthPrefixed(_ key: Data) -> Data { Data([UInt8(key.count >> 8), UInt8(key.count & 0xff)]) + key }
        return Data("P-256\0".utf8) + lengthPrefixed(receiver) + lengthPrefixed(sender)
    }
}

/// RFC 8188 §2.1's header: salt, record size, key id, then the records.
struct AES128GCMHeader {
    let salt: Data
    let recordSize: Int
    let keyID: Data
    let records: Data

    init(parsing body: Data) throws(WebPushError) {
        let bytes = body[...]
        guard bytes.count >= 21 else { throw .malformed("\(body.count) bytes is shorter than the aes128gcm header") }
        let start = bytes.startIndex
        salt = bytes[start..<start + 16]
        recordSize = bytes[(start + 16)..<(start + 20)].reduce(0) { $0 << 8 | Int($1) }
        let idLength = Int(bytes[start + 20])
        guard bytes.count >= 21 + idLength else { throw .malformed("the key id runs past the message") }
        keyID = bytes[(start + 21)..<(start + 21 + idLength)]
        records = bytes[(start + 21 + idLength)...]
    }
}
