import Foundation

/// The texts privacyIDEA signs, exactly as the server rebuilds them (protocols.md §4.3–4.5, `pushtoken.py`).
public enum PrivacyIDEASignText {
    /// Server → device: `nonce|url|serial|question|title|sslverify[|require_presence]`.
    public static func challenge(nonce: String, url: String, serial: String, question: String, title: String,
                                 sslVerify: String, presenceOptions: String?) -> String {
        [nonce, url, serial, question, title, sslVerify].joined(separator: "|") + (presenceOptions.map { "|" + $0 } ?? "")
    }

    /// `nonce|serial[|presence_answer]`.
    public static func accept(nonce: String, serial: String, presenceAnswer: String?) -> String {
        "\(nonce)|\(serial)" + (presenceAnswer.map { "|" + $0 } ?? "")
    }

    /// `nonce|serial|decline[|reason]`.
    public static func decline(nonce: String, serial: String, reason: String?) -> String {
        "\(nonce)|\(serial)|decline" + (reason.map { "|" + $0 } ?? "")
    }

    /// `serial|timestamp`.
    public static func poll(serial: String, timestamp: String) -> String { "\(serial)|\(timestamp)" }

    /// `new_fb_token|serial|timestamp`.
    public static func tokenUpdate(newToken: String, serial: String, timestamp: String) -> String {
        "\(newToken)|\(serial)|\(timestamp)"
    }
}

/// The HTTP shapes privacyIDEA uses: form-encoded requests, `{"result": {"status", "value"}, "detail"}` answers.
enum PrivacyIDEAHTTP {
    static func post(to url: String, _ fields: [(String, String)], verifyTLS: Bool) -> OutboundRequest {
        OutboundRequest(method: "POST", url: url,
                        headers: [.init("Content-Type", "application/x-www-form-urlencoded"), .init("Accept", "application/json")],
                        body: Data(FormEncoding.encode(fields).utf8), verifyTLS: verifyTLS)
    }

    static func get(_ url: String, _ fields: [(String, String)], verifyTLS: Bool) -> OutboundRequest {
        let separator = url.contains("?") ? "&" : "?"
        return OutboundRequest(method: "GET", url: url + separator + FormEncoding.encode(fields),
                               headers: [.init("Accept", "application/json")], body: Data(), verifyTLS: verifyTLS)
    }

    /// ISO-8601 in UTC with fractional seconds, as the app sends (`DateTime.now().toUtc().toIso8601String()`).
    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

/// privacyIDEA's JSON envelope.
public struct PrivacyIDEAResponse<Value: Decodable & Sendable>: Decodable, Sendable {
    public struct Result: Decodable, Sendable {
        public struct Failure: Decodable, Sendable {
            public var code: Int?
            public var message: String?
        }
        public var status: Bool
        public var value: Value?
        public var error: Failure?
    }
    public var result: Result

    /// The value of a successful call, or the server's own error message.
    public static func value(from body: Data, what: String) throws(PrivacyIDEAReplyError) -> Value {
        let response: Self
        do { response = try JSONDecoder().decode(Self.self, from: body) }
        catch { throw .unreadable("\(what): the answer is not privacyIDEA's JSON") }
        guard response.result.status, let value = response.result.value else {
            throw .refused("\(what): privacyIDEA says: \(response.result.error?.message ?? "no reason given")")
        }
        return value
    }
}

public enum PrivacyIDEAReplyError: Error, Equatable, CustomStringConvertible {
    /// privacyIDEA answered with an error (or a result of `false`).
    case refused(String)
    /// The answer is not privacyIDEA's JSON (wrong URL, a proxy's error page…).
    case unreadable(String)

    public var description: String {
        switch self {
        case .refused(let message), .unreadable(let message): message
        }
    }
}
