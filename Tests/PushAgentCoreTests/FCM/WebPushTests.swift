import Crypto
import Foundation
@testable import PushAgentCore
import Testing

/// Web Push message encryption against the RFCs' own vectors (RFC 8188 §3, RFC 8291 appendix A), and `aesgcm`, which
/// FCM uses for data messages, against a vector made by PyPI http_ece 1.2 (what firebase-messaging decrypts with).
struct WebPushTests {
    static func bytes(_ base64URL: String) -> Data { LenientBase64.decode(base64URL)! }

    /// RFC 8291 appendix A: the user agent's keys and auth secret.
    static let rfc8291Receiver = WebPushKeys(
        privateKey: try! P256.KeyAgreement.PrivateKey(rawRepresentation: bytes("q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94")),
        authSecret: bytes("BTBZMqHH6r4Tts7J_aSIgg"))
    static let rfc8291SenderKey = try! P256.KeyAgreement.PrivateKey(
        rawRepresentation: bytes("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"))
    static let rfc8291Salt = bytes("DGv6ra1nlYgDCS1FRnbzlw")
    static let rfc8291Message = bytes("DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN")
    static let watermelon = Data("When I grow up, I want to be a watermelon".utf8)

    @Test func rfc8291AppendixADecrypts() throws {
        #expect(Self.rfc8291Receiver.publicKey == Self.bytes(
            "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"))
        #expect(try Self.rfc8291Receiver.decrypt(aes128gcm: Self.rfc8291Message) == Self.watermelon)
    }

    @Test func rfc8291AppendixAIsWhatTheSenderProduces() throws {
        let sender = WebPushSender(receiverPublicKey: Self.rfc8291Receiver.publicKey,
                                   authSecret: Self.rfc8291Receiver.authSecret)
        let body = try sender.encrypt(aes128gcm: Self.watermelon, senderKey: Self.rfc8291SenderKey, salt: Self.rfc8291Salt)
        #expect(body == Self.rfc8291Message)
    }

    /// RFC 8188 §3.1 and §3.2: the record layer alone, with the key given (two records of 25 in §3.2).
    @Test(arguments: [
        ("I1BsxtFttlv3u_Oo94xnmwAAEAAA-NAVub2qFgBEuQKRapoZu-IxkIva3MEB1PD-ly8Thjg", "yqdlZ-tYemfogSmv7Ws5PQ"),
        ("uNCkWiNYzKTnBN9ji3-qWAAAABkCYTHOG8chz_gnvgOqdGYovxyjuqRyJFjEDyoF1Fvkj6hQPdPHI51OEUKEpgz3SsLWIqS_uA", "BO3ZVPxUlnLORbVGMpbT1Q"),
    ])
    func rfc8188Examples(message: String, key: String) throws {
        let header = try AES128GCMHeader(parsing: Self.bytes(message))
        let (cek, nonce) = ContentCoding.keyAndNonce(secret: SymmetricKey(data: Self.bytes(key)), salt: header.salt,
                                                     coding: .aes128gcm)
        let plaintext = try ContentCoding.aes128gcm.openRecords(header.records, key: cek, nonce: nonce,
                                                                recordSize: header.recordSize)
        #expect(String(decoding: plaintext, as: UTF8.self) == "I am the walrus")
    }

    /// Made with http_ece.encrypt(version="aesgcm") from RFC 8291's keys and salt: one 4096 record, and records of 32.
    static let aesgcmPlaintext = Data(#"{"data":{"messageId":"AUTHENTICATE:1"},"from":"1234567890","priority":"high"}"#.utf8)
    static let aesgcmVectors: [(recordSize: Int, body: String)] = [
        (4096, "4qwiZliwzPS24PQN67jHmO0-fFRqiCLDnjdJv61JsWA_CwcZO-K8s9j6fSpSpELROwotyVIDJE_ZPc68lCBUZgcBe5tOBmJputeytcs-kVE5hJ4-WcChCaA6e9delmU"),
        (32, "4qwiZliwzPS24PQN67jHmO0-fFRqiCLDnjdJv61JsWDmCn3IcrVifjycseaUiIJjVezZCP9C_WQNEKCt9wZKn2afgDKKUCfWv8WWeefPvRS8TJU_TOfec6d7UBBILcTHPJwZs4SwpeRxwLUDyYfdTr3XdlPxxP55Tlmj91mXHe3WBp4"),
    ]

    @Test func aesgcmVectorsDecryptAndReencrypt() throws {
        let senderPublic = Self.rfc8291SenderKey.publicKey.x963Representation
        let sender = WebPushSender(receiverPublicKey: Self.rfc8291Receiver.publicKey,
                                   authSecret: Self.rfc8291Receiver.authSecret)
        for vector in Self.aesgcmVectors {
            let body = Self.bytes(vector.body)
            #expect(try Self.rfc8291Receiver.decrypt(aesgcm: body, salt: Self.rfc8291Salt, senderPublicKey: senderPublic,
                                                     recordSize: vector.recordSize) == Self.aesgcmPlaintext)
            let sealed = try sender.encrypt(aesgcm: Self.aesgcmPlaintext, recordSize: vector.recordSize,
                                            senderKey: Self.rfc8291SenderKey, salt: Self.rfc8291Salt)
            #expect(sealed.body == body && sealed.senderPublicKey == senderPublic)
        }
    }

    @Test(arguments: ContentCoding.allCases, [0, 1, 29, 30, 31, 200])
    func roundTripsAtEveryRecordBoundary(coding: ContentCoding, length: Int) throws {
        let receiver = WebPushKeys.generate()
        let sender = WebPushSender(receiverPublicKey: receiver.publicKey, authSecret: receiver.authSecret)
        let plaintext = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 * 7) })
        switch coding {
        case .aes128gcm:
            let body = try sender.encrypt(aes128gcm: plaintext, recordSize: 48)
            #expect(try receiver.decrypt(aes128gcm: body) == plaintext)
        case .aesgcm:
            let message = try sender.encrypt(aesgcm: plaintext, recordSize: 32)
            #expect(try receiver.decrypt(aesgcm: message.body, salt: message.salt, senderPublicKey: message.senderPublicKey,
                                         recordSize: 32) == plaintext)
        }
    }

    @Test func whatIsNotForUsOrWasAlteredIsRefusedWithItsReason() throws {
        let sender = WebPushSender(receiverPublicKey: Self.rfc8291Receiver.publicKey,
                                   authSecret: Self.rfc8291Receiver.authSecret)
        let message = try sender.encrypt(aesgcm: Self.aesgcmPlaintext)
        let stranger = WebPushKeys.generate()
        #expect(throws: WebPushError.undecryptable("record 0 does not decrypt (wrong keys, or altered)")) {
            try stranger.decrypt(aesgcm: message.body, salt: message.salt, senderPublicKey: message.senderPublicKey)
        }
        var altered = message.body
        altered[altered.startIndex + 3] ^= 1
        #expect(throws: WebPushError.self) {
            try Self.rfc8291Receiver.decrypt(aesgcm: altered, salt: message.salt, senderPublicKey: message.senderPublicKey)
        }
        #expect(throws: WebPushError.malformed("the salt is 3 bytes, not 16")) {
            try Self.rfc8291Receiver.decrypt(aesgcm: message.body, salt: Data([1, 2, 3]), senderPublicKey: message.senderPublicKey)
        }
        #expect(throws: WebPushError.malformed("the sender's key (4 bytes) is not a P-256 point")) {
            try Self.rfc8291Receiver.decrypt(aesgcm: message.body, salt: message.salt, senderPublicKey: Data([4, 1, 2, 3]))
        }
        let truncated = Self.rfc8291Message.prefix(30)
        #expect(throws: WebPushError.malformed("the key id runs past the message")) {
            try Self.rfc8291Receiver.decrypt(aes128gcm: truncated)
        }
        var hugeRecords = Self.rfc8291Message
        hugeRecords.replaceSubrange(16..<20, with: [0xff, 0xff, 0xff, 0xff])
        #expect(throws: WebPushError.malformed("record size 4294967295 is out of range")) {
            try Self.rfc8291Receiver.decrypt(aes128gcm: hugeRecords)
        }
    }
}
