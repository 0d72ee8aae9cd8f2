import Crypto
import Foundation
import PushAgentCore

/// One UnifiedPush app of the Web Push soak: a bus name the soak's connector process owns, the connection token
/// it registered with, and the RFC 8291 keys its server encrypts to. The soak holds the keys in the app's place:
/// the connector (scripts/unifiedpush_connector.py) only logs what its `Message` got, and the soak decrypts that.
struct SoakApp: Sendable {
    let index: Int
    let service: String
    let token: String
    /// The D-Bus interfaces it registers through: Distributor1/Connector1 or Distributor2/Connector2.
    let version: Int
    /// Registered with the application server's VAPID key (Distributor2 only): its messages need VAPID.
    let restricted: Bool
    let keys: WebPushKeys
    var endpoint = ""

    /// `count` apps: two of every ten Connector1 (no VAPID in that version), one Connector2 without a VAPID key,
    /// the others Connector2 restricted to the soak's one application server key.
    static func make(count: Int) -> [SoakApp] {
        (0..<count).map { index in
            let version = index % 10 >= 8 ? 1 : 2
            return SoakApp(index: index, service: "org.pushsoak.App\(index)", token: "soak-\(index)-\(UUID().uuidString)",
                           version: version, restricted: version == 2 && index % 10 != 7, keys: .generate())
        }
    }

    var path: String { URL(string: endpoint)?.path ?? "" }

    /// The body an application server posts: `plaintext` encrypted to the app's keys (`aes128gcm`, a fresh sender
    /// key and salt each time, so no two bodies are alike).
    func encrypt(_ plaintext: Data) throws -> Data {
        try WebPushSender(receiverPublicKey: keys.publicKey, authSecret: keys.authSecret).encrypt(aes128gcm: plaintext)
    }
}

/// The application server's VAPID key (RFC 8292), as pywebpush signs with it: an ES256 JWT with `aud` the
/// endpoint's origin, `exp` 12 hours ahead and a `sub` contact, signed again for every message.
struct SoakVAPIDKey: Sendable {
    let key = P256.Signing.PrivateKey()
    /// What an app gives its distributor's `Register` as `vapid`, and the `k` of each message.
    var publicKey: String { base64URL(key.publicKey.x963Representation) }
    private static let header = base64URL(Data(#"{"typ":"JWT","alg":"ES256"}"#.utf8))

    func authorization(audience: String) throws -> String {
        let exp = Int(Date().timeIntervalSince1970) + 12 * 3600
        let claims = base64URL(Data(#"{"aud":"\#(audience)","exp":\#(exp),"sub":"mailto:pushsoak@example.com"}"#.utf8))
        let signature = try key.signature(for: Data("\(Self.header).\(claims)".utf8))
        return "vapid t=\(Self.header).\(claims).\(base64URL(signature.rawRepresentation)), k=\(publicKey)"
    }
}

func base64URL(_ data: Data) -> String {
    data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}
