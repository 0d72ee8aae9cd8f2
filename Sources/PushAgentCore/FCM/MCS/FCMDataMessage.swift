import Crypto
import Foundation

/// A data stanza FCM delivered, opened: the push's data as the provider sent it.
public enum FCMDataMessage {
    /// The provider's `data` from a web-push data message (`{"data": {...}, "from": ..., "fcmMessageId": ...}`),
    /// marked the way Chromium's GCM encryption provider reads it: `content-encoding: aes128gcm` in the app data with
    /// the whole RFC 8188 body (its salt and the sender's key in its header) in `raw_data`, or else `aesgcm` with the
    /// salt and the sender's key in the app data's `encryption` and `crypto-key`.
    public static func open(_ stanza: McsProto_DataMessageStanza, keys: WebPushKeys) throws(WebPushError)
        -> [String: String] {
        let plaintext = try decrypt(stanza, keys: keys)
        guard let object = try? JSONSerialization.jsonObject(with: plaintext) as? [String: Any] else {
            throw .malformed("the decrypted message is not a JSON object")
        }
        guard let data = object["data"] as? [String: Any] else { return [:] }
        return data.compactMapValues { $0 as? String }
    }

    private static func decrypt(_ stanza: McsProto_DataMessageStanza, keys: WebPushKeys) throws(WebPushError) -> Data {
        let encoding = MCSMessage.appData(stanza, "content-encoding")
        switch encoding?.lowercased() {
        case "aes128gcm":
            return try keys.decrypt(aes128gcm: stanza.rawData)
        case nil, "aesgcm":
            guard let salt = MCSMessage.appData(stanza, "encryption").flatMap({ parameter("salt", in: $0) }),
                  let dh = MCSMessage.appData(stanza, "crypto-key").flatMap({ parameter("dh", in: $0) }) else {
                throw .malformed("the stanza is neither aes128gcm (no content-encoding: aes128gcm) nor aesgcm (no "
                    + "encryption salt and crypto-key dh in its app data)")
            }
            return try keys.decrypt(aesgcm: stanza.rawData, salt: salt, senderPublicKey: dh)
        case let other?:
            throw .malformed("the stanza's content-encoding '\(other.prefix(40))' is neither aes128gcm nor aesgcm")
        }
    }

    /// `name=<base64url>` out of a header-like field (`salt=…`, `dh=…;p256ecdsa=…`).
    static func parameter(_ name: String, in field: String) -> Data? {
        field.split(separator: ";").lazy.map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.hasPrefix(name + "=") }
            .flatMap { LenientBase64.decode($0.dropFirst(name.count + 1)) }
    }
}
