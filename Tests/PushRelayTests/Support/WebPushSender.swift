import Crypto
import CurlHTTP
import Foundation

/// A device's Web Push subscription as the relay created it.
struct TestSubscription: Sendable {
    var id: String
    var endpoint: String

    /// The endpoint's path on the relay (`/push/<token>`).
    var path: String { URLComponents(string: endpoint)?.path ?? endpoint }
}

/// An application server's VAPID key (RFC 8292), signing as pywebpush does.
struct VAPIDSigner: Sendable {
    let key = P256.Signing.PrivateKey()

    var publicKey: String { base64URL(key.publicKey.x963Representation) }

    /// `vapid t=<JWT>, k=<key>` for a push resource of `audience`, expiring in `validFor` seconds.
    func authorization(audience: String, validFor: Int64 = 3600) throws -> String {
        let header = base64URL(Data(#"{"typ":"JWT","alg":"ES256"}"#.utf8))
        let exp = Int64(Date().timeIntervalSince1970) + validFor
        let claims = base64URL(try JSONSerialization.data(withJSONObject: ["aud": audience, "exp": exp, "sub": "mailto:test@example.com"]))
        let signature = try key.signature(for: Data("\(header).\(claims)".utf8))
        return "vapid t=\(header).\(claims).\(base64URL(signature.rawRepresentation)), k=\(publicKey)"
    }
}

func base64URL(_ data: Data) -> String {
    data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

extension TestRelay {
    func subscribe(_ device: TestDevice, applicationServerKey: String? = nil) async throws -> TestSubscription {
        let response = try await http("POST", "/v1/devices/\(device.id)/webpush", bearer: device.secret,
                                      json: applicationServerKey.map { ["application_server_key": $0] } ?? [:])
        guard response.status == 201 else { throw TestFailure("subscribe: \(response.status) \(response.text)") }
        let body = try JSONDecoder().decode([String: String].self, from: response.body)
        return TestSubscription(id: body["id"] ?? "", endpoint: body["endpoint"] ?? "")
    }

    /// A Web Push message as a sender posts it: `aes128gcm` when it has a body.
    func push(_ subscription: TestSubscription, body: Data = Data(), ttl: String? = "60", topic: String? = nil,
              urgency: String? = nil, authorization: String? = nil) async throws -> HTTPResponse {
        var headers: [(name: String, value: String)] = []
        if let ttl { headers.append((name: "TTL", value: ttl)) }
        if let topic { headers.append((name: "Topic", value: topic)) }
        if let urgency { headers.append((name: "Urgency", value: urgency)) }
        if let authorization { headers.append((name: "Authorization", value: authorization)) }
        if !body.isEmpty { headers.append((name: "Content-Encoding", value: "aes128gcm")) }
        return try await http("POST", subscription.path, rawBody: body, headers: headers)
    }
}
