import Crypto
import Foundation

/// The sending side of RFC 8291, for pushsim's FCM emulator and the tests: encrypts to a subscription's keys with a
/// fresh sender key pair and salt each time (the ones given are for reproducing vectors).
public struct WebPushSender: Sendable {
    public let receiverPublicKey: Data
    public let authSecret: Data

    public init(receiverPublicKey: Data, authSecret: Data) {
        self.receiverPublicKey = receiverPublicKey
        self.authSecret = authSecret
    }

    /// An `aesgcm` message and what travels beside it, as FCM delivers a data message.
    public struct AESGCMMessage: Sendable {
        public let body: Data
        public let salt: Data
        public let senderPublicKey: Data
    }

    public func encrypt(aesgcm plaintext: Data, recordSize: Int = 4096,
                        senderKey: P256.KeyAgreement.PrivateKey = .init(), salt: Data = Self.randomSalt()) throws
        -> AESGCMMessage {
        let sender = senderKey.publicKey.x963Representation
        let secret = try secret(senderKey, coding: .aesgcm)
        let context = WebPushKeys.aesgcmContext(receiver: receiverPublicKey, sender: sender)
        let (key, nonce) = ContentCoding.keyAndNonce(secret: secret, salt: salt, coding: .aesgcm, context: context)
        let body = try ContentCoding.aesgcm.sealRecords(plaintext, key: key, nonce: nonce, recordSize: recordSize)
        return AESGCMMessage(body: body, salt: salt, senderPublicKey: sender)
    }

    public func encrypt(aes128gcm plaintext: Data, recordSize: Int = 4096,
                        senderKey: P256.KeyAgreement.PrivateKey = .init(), salt: Data = Self.randomSalt()) throws -> Data {
        let sender = senderKey.publicKey.x963Representation
        let secret = try secret(senderKey, coding: .aes128gcm)
        let (key, nonce) = ContentCoding.keyAndNonce(secret: secret, salt: salt, coding: .aes128gcm)
        let size = UInt32(recordSize)
        let header = salt + [UInt8(size >> 24), UInt8(size >> 16 & 0xff), UInt8(size >> 8 & 0xff), UInt8(size & 0xff)]
            + [UInt8(sender.count)] + sender
        return header + (try ContentCoding.aes128gcm.sealRecords(plaintext, key: key, nonce: nonce, recordSize: recordSize))
    }

    private func secret(_ senderKey: P256.KeyAgreement.PrivateKey, coding: ContentCoding) throws -> SymmetricKey {
        let shared = try senderKey.sharedSecretFromKeyAgreement(
            with: P256.KeyAgreement.PublicKey(x963Representation: receiverPublicKey))
        return WebPushKeys.mix(shared, authSecret: authSecret, receiver: receiverPublicKey,
                               sender: senderKey.publicKey.x963Representation, coding: coding)
    }

    public static func randomSalt() -> Data { SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) } }
}
