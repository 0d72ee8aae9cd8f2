import Foundation
@testable import PushAgentCore
import Testing

/// A data stanza is opened as Chromium's GCM encryption provider opens it: `aes128gcm` when its app data says
/// `content-encoding: aes128gcm` (the RFC 8188 header carries the salt and the sender's key), `aesgcm` otherwise.
struct FCMDataMessageTests {
    static let receiver = WebPushTests.rfc8291Receiver

    static func stanza(_ body: Data, appData: [(String, String)]) -> McsProto_DataMessageStanza {
        var stanza = McsProto_DataMessageStanza()
        stanza.rawData = body
        stanza.appData = appData.map { key, value in
            var item = McsProto_AppData()
            item.key = key
            item.value = value
            return item
        }
        return stanza
    }

    /// Made by PyPI http_ece 1.1 (`http_ece.encrypt(version="aes128gcm")`) from RFC 8291's keys and salt, the sender
    /// nobody here wrote; before, such a stanza was dropped as "no encryption salt or crypto-key dh".
    @Test func anAes128gcmStanzaMarkedAsChromiumReadsItIsOpened() throws {
        let body = WebPushTests.bytes("DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_e3d9UFrO4LFqevusKqURY-Ezg9-EXK_yx210ytZPTasD6BGlhHSKYUBP9w12VwgpLXLFNt1Lr0_s3uYmIaCDjqm6txoQYEaDVaKJhS14ndqtBpAeJbwsi_6bNbCY_")
        let stanza = Self.stanza(body, appData: [("content-encoding", "aes128gcm"), ("subtype", "wp:x")])
        #expect(try FCMDataMessage.open(stanza, keys: Self.receiver) == ["messageId": "AUTHENTICATE:1"])
    }

    @Test func ourOwnAes128gcmSenderIsReadToo() throws {
        let sealed = try WebPushSender(receiverPublicKey: Self.receiver.publicKey, authSecret: Self.receiver.authSecret)
            .encrypt(aes128gcm: Data(#"{"data":{"a":"1","n":2}}"#.utf8))
        let stanza = Self.stanza(sealed, appData: [("content-encoding", "AES128GCM")])
        #expect(try FCMDataMessage.open(stanza, keys: Self.receiver) == ["a": "1"])
    }

    @Test func anAesgcmStanzaIsStillOpened() throws {
        let sealed = try WebPushSender(receiverPublicKey: Self.receiver.publicKey, authSecret: Self.receiver.authSecret)
            .encrypt(aesgcm: Data(#"{"data":{"messageId":"m"}}"#.utf8))
        let stanza = Self.stanza(sealed.body, appData: [
            ("encryption", "salt=" + sealed.salt.base64EncodedString()),
            ("crypto-key", "dh=" + sealed.senderPublicKey.base64EncodedString()),
        ])
        #expect(try FCMDataMessage.open(stanza, keys: Self.receiver) == ["messageId": "m"])
    }

    @Test(arguments: [
        ([("subtype", "wp:x")], "neither aes128gcm (no content-encoding: aes128gcm) nor aesgcm"),
        ([("content-encoding", "br")], "content-encoding 'br' is neither aes128gcm nor aesgcm"),
        ([("content-encoding", "aes128gcm")], "shorter than the aes128gcm header"),
    ])
    func whatCannotBeOpenedSaysWhy(appData: [(String, String)], says: String) {
        #expect { try FCMDataMessage.open(Self.stanza(Data([1, 2, 3]), appData: appData), keys: Self.receiver) } throws: {
            "\($0)".contains(says)
        }
    }
}
