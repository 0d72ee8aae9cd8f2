import Crypto
import Foundation
import FuzzSupport
@testable import PushAgentCore

@_cdecl("FuzzWebPush_main")
func fuzzMain(_ argc: Int32, _ argv: FuzzArguments) -> Int32 { FuzzDriver.run(argc, argv, testWebPush) }

/// RFC 8291 appendix A's receiver keys: the seeds decrypt under them.
private let receiver = WebPushKeys(
    privateKey: try! P256.KeyAgreement.PrivateKey(rawRepresentation: LenientBase64.decode("q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94")!),
    authSecret: LenientBase64.decode("BTBZMqHH6r4Tts7J_aSIgg")!)
private let senderKey = try! P256.KeyAgreement.PrivateKey(
    rawRepresentation: LenientBase64.decode("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw")!)

/// An encrypted push as a hostile sender might shape it, by the first byte: an aes128gcm message (header and
/// records), or an aesgcm body with its salt (16 bytes) and record size (2 bytes) in front. Decryption must
/// throw or return, never trap; and what the sender's side seals from the same bytes always opens to them.
func testWebPush(_ bytes: Data) {
    guard let (mode, rest) = FuzzInput.mode(of: bytes, count: 2) else { return }
    let sender = WebPushSender(receiverPublicKey: receiver.publicKey, authSecret: receiver.authSecret)
    if mode == 0 {
        _ = try? receiver.decrypt(aes128gcm: rest)
        let size = 18 + Int(rest.first ?? 0)
        let sealed = try! sender.encrypt(aes128gcm: rest, recordSize: size, senderKey: senderKey)
        precondition(try! receiver.decrypt(aes128gcm: sealed) == rest)
    } else {
        guard rest.count >= 18 else { return }
        let salt = rest.prefix(16)
        let recordSize = Int(rest[rest.startIndex + 16]) << 8 | Int(rest[rest.startIndex + 17])
        let body = rest.dropFirst(18)
        _ = try? receiver.decrypt(aesgcm: body, salt: salt, senderPublicKey: senderKey.publicKey.x963Representation,
                                  recordSize: recordSize)
        guard recordSize > 2, recordSize <= 1 << 16 else { return }
        let sealed = try! sender.encrypt(aesgcm: body, recordSize: recordSize, senderKey: senderKey, salt: salt)
        precondition(try! receiver.decrypt(aesgcm: sealed.body, salt: salt, senderPublicKey: sealed.senderPublicKey,
                                           recordSize: recordSize) == body)
    }
}
