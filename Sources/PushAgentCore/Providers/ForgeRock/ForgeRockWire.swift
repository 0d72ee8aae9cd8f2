import Crypto
import Foundation

/// `{"messageId", "jwt"}`: the body of every device → AM call.
public struct ForgeRockMessageBody: Codable, Sendable, Equatable {
    public var messageId: String
    public var jwt: String
}

/// The challenge-response that proves a registration or an answer comes from the holder of the shared secret.
public enum ForgeRockChallenge {
    /// base64std(HMAC-SHA256(key: secret, message: challenge)), padded.
    public static func response(secret: Data, challenge: Data) -> String {
        Data(HMAC<SHA256>.authenticationCode(for: challenge, using: SymmetricKey(data: secret))).standardBase64
    }

    /// Constant-time, so a server (pushsim) leaks nothing about the expected value.
    public static func isValid(response: String, secret: Data, challenge: Data) -> Bool {
        guard let mac = LenientBase64.decode(response) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: challenge, using: SymmetricKey(data: secret))
    }
}

/// How the device talks to AM's `/push/sns/message` endpoint.
enum ForgeRockHTTP {
    static let acceptAPIVersion = "resource=1.0, protocol=1.0"

    static func post(to url: String, messageId: String, jwt: String, cookie: String?) throws -> OutboundRequest {
        try post(to: url, body: ForgeRockMessageBody(messageId: messageId, jwt: jwt), cookie: cookie)
    }

    static func post(to url: String, body: some Encodable, cookie: String?) throws -> OutboundRequest {
        var headers = [OutboundRequest.Header("Content-Type", "application/json"),
                       OutboundRequest.Header("Accept-API-Version", acceptAPIVersion)]
        // AM's load balancer routes by this cookie to the server that holds the pending request.
        if let cookie { headers.append(.init("Cookie", cookie)) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return OutboundRequest(method: "POST", url: url, headers: headers, body: try encoder.encode(body))
    }
}
