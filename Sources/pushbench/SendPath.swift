import ArgumentParser
import ClusterHarness
import Crypto
import CryptoExtras
import Foundation
import PushSim

/// How a sender reaches the relay in `pushbench webpush`.
enum SendPath: String, CaseIterable, ExpressibleByArgument {
    /// `POST /push/<token>` to a subscription made without an application server key.
    case webPush = "webpush"
    /// The same to a subscription restricted to the sender's VAPID key: `Authorization: vapid t=<ES256 JWT>, k=<key>`.
    case webPushVAPID = "webpush-vapid"
    /// FCM HTTP v1's `messages:send` with an OAuth2 access token from the relay's `/token` (a service account's
    /// RS256 assertion), fetched once and used for every send, as firebase-admin and google-auth use one for its hour.
    case fcm = "fcm"
    /// The same with a static sender key as the bearer (`make bench-relay`'s way): no access-token lookup.
    case fcmKey = "fcm-key"

    var title: String {
        switch self {
        case .webPush: "Web Push"
        case .webPushVAPID: "Web Push + VAPID"
        case .fcm: "FCM-v1 (OAuth)"
        case .fcmKey: "FCM-v1 (sender key)"
        }
    }

    var isWebPush: Bool { self == .webPush || self == .webPushVAPID }
    /// 201 for Web Push (RFC 8030 §5), 200 for FCM.
    var acceptedStatus: Int { isWebPush ? 201 : 200 }
}

/// Whether the VAPID JWT is signed again for every message (what pywebpush's `webpush()` does on each call) or
/// signed once and sent until shortly before it expires (what a sender caching its JWT does).
enum VAPIDSigning: String, ExpressibleByArgument {
    case perMessage = "per-message"
    case reused
}

/// An application server's VAPID key (RFC 8292): an ES256 JWT with `aud` the endpoint's origin, `exp` 12 hours
/// ahead and a `sub` contact, as pywebpush writes it.
struct VAPIDSigner: Sendable {
    let key = P256.Signing.PrivateKey()
    var publicKey: String { Base64URL.string(key.publicKey.x963Representation) }
    private static let header = Base64URL.string(Array(#"{"typ":"JWT","alg":"ES256"}"#.utf8))

    func authorization(audience: String) throws -> String {
        let exp = Int(Date().timeIntervalSince1970) + 12 * 3600
        let claims = Base64URL.string(Array(#"{"aud":"\#(audience)","exp":\#(exp),"sub":"mailto:bench@example.com"}"#.utf8))
        let signature = try key.signature(for: Data("\(Self.header).\(claims)".utf8))
        return "vapid t=\(Self.header).\(claims).\(Base64URL.string(signature.rawRepresentation)), k=\(publicKey)"
    }
}

/// A Google service account as a sender holds it: an RSA key (made by openssl), its public half given to the relay
/// with `--service-account`, and an RS256 assertion exchanged at `POST /token` for an access token.
struct ServiceAccount {
    let privateKeyPath: String
    let publicKeyPath: String

    static func make(in directory: String) async throws -> ServiceAccount {
        let account = ServiceAccount(privateKeyPath: directory + "/sender.key.pem", publicKeyPath: directory + "/sender.pub.pem")
        for arguments in [["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", account.privateKeyPath],
                          ["pkey", "-in", account.privateKeyPath, "-pubout", "-out", account.publicKeyPath]] {
            let result = try await CommandResult.run("/usr/bin/openssl", arguments)
            guard result.status == 0 else { throw BenchError("openssl \(arguments[0]) failed: \(result.stderr)") }
        }
        return account
    }

    func accessToken(relayPort: Int) throws -> String {
        let key = try _RSA.Signing.PrivateKey(pemRepresentation: String(contentsOfFile: privateKeyPath, encoding: .utf8))
        let now = Int(Date().timeIntervalSince1970)
        let header = Base64URL.string(Array(#"{"alg":"RS256","typ":"JWT"}"#.utf8))
        let claims = Base64URL.string(Array("""
            {"iss":"bench@bench.iam.gserviceaccount.com","aud":"https://oauth2.googleapis.com/token",\
            "scope":"https://www.googleapis.com/auth/firebase.messaging","iat":\(now),"exp":\(now + 3600)}
            """.utf8))
        let signature = try key.signature(for: Data("\(header).\(claims)".utf8), padding: .insecurePKCS1v1_5)
        let assertion = "\(header).\(claims).\(Base64URL.string(signature.rawRepresentation))"
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"
        let answer = try SetupClient(port: relayPort).request(
            "POST", "/token", headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array(form.utf8))
        guard answer.status == 200, let reply = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any],
              let token = reply["access_token"] as? String else {
            throw BenchError("POST /token: \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
        }
        return token
    }
}

/// Writes each message's request for one send path, body size and list of targets, as a sender would put it on the
/// wire. A Web Push body is `size` random bytes under `Content-Encoding: aes128gcm` (the relay never decrypts, so
/// random bytes cost it what a real RFC 8291 record does), the first 18 of them the message's `MessageStamp`. An FCM
/// send carries the same bytes as the relay stores a Web Push body, base64url in one data value
/// (`{"message":{"token":…,"data":{"body":"…"}}}`), at most `fcmLargestBody` bytes: FCM's 4096-byte payload limit
/// counts the JSON, so 4096 raw bytes (5462 characters) are more than an FCM message may carry.
final class RequestWriter: Sendable {
    /// The most raw bytes whose base64url fits FCM's 4096-byte payload `{"data":{"body":"…"}}` (20 bytes of JSON).
    static let fcmLargestBody = (4096 - 20) / 4 * 3

    let path: SendPath
    let bodySize: Int
    private let heads: [[UInt8]]
    /// The body after its stamp: raw bytes for Web Push, base64url characters for FCM.
    private let tail: [UInt8]
    private let closing: [UInt8]
    private let signer: VAPIDSigner?
    private let audience: String
    private let reusedAuthorization: String?

    var targets: Int { heads.count }

    /// `targets`: Web Push endpoints (`http://127.0.0.1:<port>/push/<token>`) or FCM registration tokens.
    init(path: SendPath, bodySize: Int, targets: [String], port: Int, bearer: String?, signer: VAPIDSigner?,
         signing: VAPIDSigning) throws {
        self.path = path
        self.signer = signer
        audience = "http://127.0.0.1:\(port)"
        var random = SystemRandomNumberGenerator()
        if path.isWebPush {
            self.bodySize = bodySize
            tail = (0..<(bodySize - MessageStamp.byteCount)).map { _ in UInt8.random(in: 0...255, using: &random) }
            closing = []
            heads = try targets.map { endpoint in
                guard let url = URL(string: endpoint), url.port == port else { throw BenchError("unexpected endpoint \(endpoint)") }
                // pywebpush's headers, with a TTL of a day: its default TTL of 0 means "now or never" (RFC 8030 §5.2),
                // which the relay drops when the device's poll is not waiting at that moment.
                return Array("""
                    POST \(url.path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nTTL: 86400\r\nUrgency: normal\r\n\
                    Content-Type: application/octet-stream\r\nContent-Encoding: aes128gcm\r\nContent-Length: \(bodySize)\r\n
                    """.utf8)
            }
        } else {
            let raw = min(bodySize, Self.fcmLargestBody)
            self.bodySize = raw
            let bytes = (0..<(raw - MessageStamp.byteCount)).map { _ in UInt8.random(in: 0...255, using: &random) }
            // The stamp is 18 bytes, a whole number of base64 groups: the rest encodes the same for every message.
            tail = Base64URL.encode([UInt8](repeating: 0, count: MessageStamp.byteCount) + bytes).dropFirst(24).map { $0 }
            closing = Array(#""}}}"#.utf8)
            let encodedLength = 24 + tail.count
            guard let bearer else { throw BenchError("FCM sends need a bearer") }
            heads = targets.map { token in
                let opening = #"{"message":{"token":"\#(token)","data":{"body":""#
                return Array("""
                    POST /v1/projects/bench/messages:send HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\
                    Authorization: Bearer \(bearer)\r\nContent-Type: application/json\r\n\
                    Content-Length: \(opening.utf8.count + encodedLength + 4)\r\n\r\n\(opening)
                    """.utf8)
            }
        }
        let audience = audience
        reusedAuthorization = path == .webPushVAPID && signing == .reused
            ? try signer.map { try $0.authorization(audience: audience) } : nil
    }

    /// Writes message `number` of `run` to `target` into `request` (emptied first) and returns when it was stamped
    /// sent: after the signing a VAPID sender does before it sends, just before the body is written.
    func write(number: UInt64, run: UInt16, target: Int, into request: inout [UInt8]) throws -> UInt64 {
        request.removeAll(keepingCapacity: true)
        request += heads[target]
        if path == .webPushVAPID {
            let authorization = try reusedAuthorization ?? signer!.authorization(audience: audience)
            request += Array("Authorization: \(authorization)\r\n".utf8)
        }
        if path.isWebPush { request += [13, 10] }
        let sentAt = MonotonicTime.nanoseconds()
        var stamp = [UInt8](repeating: 0, count: MessageStamp.byteCount)
        MessageStamp(number: number, sentAt: sentAt, run: run).write(to: &stamp)
        request += path.isWebPush ? stamp : Base64URL.encode(stamp)
        request += tail
        request += closing
        return sentAt
    }
}
