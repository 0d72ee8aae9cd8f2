import CurlHTTP
import Foundation

/// pushsim's admin API (ForgeRock role), as the tests, the demo and the benchmark drive it.
public struct SimClient: Sendable {
    public let baseURL: String

    public init(baseURL: String) { self.baseURL = baseURL }

    public struct Push: Decodable, Sendable {
        public var messageId: String
        public var numbers: [String]?
        public var correctNumber: String?
        /// When pushsim began sending it to the transport (`MonotonicTime`).
        public var sendStartedNs: UInt64?
        enum CodingKeys: String, CodingKey {
            case messageId = "message_id", numbers, correctNumber = "correct_number", sendStartedNs = "send_started_ns"
        }
    }

    public struct Answer: Decodable, Sendable {
        public var seq: Int
        public var messageId: String
        public var outcome: String
        public var number: String?
        public var verified: Bool
        public var error: String?
        enum CodingKeys: String, CodingKey { case seq, messageId = "message_id", outcome, number, verified, error }
    }

    public func enrollURI(account: String = "alice", totp: Bool = false) async throws -> String {
        struct Reply: Decodable { var uri: String }
        let reply: Reply = try await post("/sim/forgerock/enroll-uri", ["account": account, "totp": totp])
        return reply.uri
    }

    /// A push to `account` (default: the account enrolled last).
    public func push(type: String = "default", ttl: Int? = nil, message: String? = nil, issuedAtMs: Int64? = nil,
                     messageId: String? = nil, account: String? = nil) async throws -> Push {
        try await post("/sim/forgerock/push", encoding: PushRequest(
            type: type, account: account, ttl: ttl, message: message, issuedAtMs: issuedAtMs, messageId: messageId))
    }

    /// Typed, not a dictionary through `JSONSerialization`: pushbench sends one a push, on the cores it measures.
    private struct PushRequest: Encodable {
        var type: String
        var account: String?
        var ttl: Int?
        var message: String?
        var issuedAtMs: Int64?
        var messageId: String?
        enum CodingKeys: String, CodingKey {
            case type, account, ttl, message, issuedAtMs = "issued_at_ms", messageId = "message_id"
        }
    }

    public func answers(after: Int = 0, wait: Int = 0) async throws -> [Answer] {
        struct Reply: Decodable { var answers: [Answer] }
        let response = try await CurlHTTPClient.shared.send(HTTPRequest(
            url: "\(baseURL)/sim/forgerock/answers?after=\(after)&wait=\(wait)", timeout: .seconds(wait + 10)))
        return try JSONDecoder().decode(Reply.self, from: try check(response)).answers
    }

    /// While `down`, the sim's AM endpoints answer 503.
    public func setOutage(down: Bool) async throws {
        struct Reply: Decodable { var down: Bool }
        let _: Reply = try await post("/sim/forgerock/outage", ["down": down])
    }

    /// The push token AM (the sim) now sends each account's pushes to.
    public func deviceTokens() async throws -> [String: String] {
        struct Registration: Decodable {
            var account: String
            var deviceToken: String
            enum CodingKeys: String, CodingKey { case account, deviceToken = "device_token" }
        }
        struct Reply: Decodable { var registrations: [Registration] }
        let response = try await CurlHTTPClient.shared.send(HTTPRequest(url: "\(baseURL)/sim/forgerock/registrations"))
        let reply = try JSONDecoder().decode(Reply.self, from: try check(response))
        return Dictionary(reply.registrations.map { ($0.account, $0.deviceToken) }) { $1 }
    }

    /// Waits for the answer to `messageId`.
    public func answer(to messageId: String, timeout: Int = 15) async throws -> Answer {
        guard let answer = try await longPolling(for: .seconds(timeout), { wait in
            try await answers(wait: wait).last { $0.messageId == messageId }
        }) else { throw HarnessError("pushsim received no answer to \(messageId) within \(timeout) s") }
        return answer
    }

    func post<T: Decodable>(_ path: String, _ body: [String: Any]) async throws -> T {
        let response = try await CurlHTTPClient.shared.send(HTTPRequest(
            method: "POST", url: baseURL + path, headers: [(name: "Content-Type", value: "application/json")],
            body: try JSONSerialization.data(withJSONObject: body)))
        return try JSONDecoder().decode(T.self, from: try check(response))
    }

    func check(_ response: HTTPResponse) throws -> Data {
        guard (200..<300).contains(response.status) else {
            throw HarnessError("pushsim answered HTTP \(response.status): \(response.text)")
        }
        return response.body
    }
}
