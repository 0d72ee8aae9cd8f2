import CurlHTTP
import Foundation

/// pushsim's admin API (PlusAuth role), as the tests drive it: `SimClient(baseURL:).plusAuth`.
public struct PlusAuthSimClient: Sendable {
    let sim: SimClient

    public struct Push: Decodable, Sendable {
        public var pushId: String
        public var values: [String]?
        public var correctValue: String?
        enum CodingKeys: String, CodingKey { case pushId = "push_id", values, correctValue = "correct_value" }
    }

    public struct Answer: Decodable, Sendable {
        public var seq: Int
        public var pushId: String?
        public var outcome: String
        public var value: String?
        public var rejectReason: String?
        public var verified: Bool
        public var endpoint: String
        public var error: String?
        enum CodingKeys: String, CodingKey {
            case seq, pushId = "push_id", outcome, value, rejectReason = "reject_reason", verified, endpoint, error
        }
    }

    public struct Registration: Decodable, Sendable {
        public var account: String
        public var algorithm: String
        public var deviceToken: String
        enum CodingKeys: String, CodingKey { case account, algorithm, deviceToken = "device_token" }
    }

    /// An `otpauth://push` URI; `algorithm` is the TOTP hash (SHA1, SHA256, SHA512).
    public func enrollURI(account: String = "alice", algorithm: String = "SHA256", digits: Int = 6,
                          period: Int = 30) async throws -> String {
        struct Reply: Decodable { var uri: String }
        let reply: Reply = try await sim.post("/sim/plusauth/enroll-uri", [
            "account": account, "algorithm": algorithm, "digits": digits, "period": period])
        return reply.uri
    }

    public func push(type: String = "code", ttl: Int? = nil, bindSim: Bool = false, expired: Bool = false,
                     tampered: Bool = false, resolvePath: String? = nil, pushId: String? = nil,
                     application: String? = nil) async throws -> Push {
        var body: [String: Any] = ["type": type, "bind_sim": bindSim, "expired": expired, "tampered": tampered]
        if let application { body["application"] = application }
        if let ttl { body["ttl"] = ttl }
        if let resolvePath { body["resolve_path"] = resolvePath }
        if let pushId { body["push_id"] = pushId }
        return try await sim.post("/sim/plusauth/push", body)
    }

    public func answers(after: Int = 0, wait: Int = 0) async throws -> [Answer] {
        struct Reply: Decodable { var answers: [Answer] }
        return try await get("/sim/plusauth/answers?after=\(after)&wait=\(wait)", as: Reply.self, timeout: wait + 10).answers
    }

    /// Waits for the answer to `pushId`.
    public func answer(to pushId: String, timeout: Int = 15) async throws -> Answer {
        guard let answer = try await longPolling(for: .seconds(timeout), { wait in
            try await answers(wait: wait).last { $0.pushId == pushId }
        }) else { throw HarnessError("pushsim received no answer to \(pushId) within \(timeout) s") }
        return answer
    }

    public func registrations() async throws -> [Registration] {
        struct Reply: Decodable { var registrations: [Registration] }
        return try await get("/sim/plusauth/registrations", as: Reply.self, timeout: 10).registrations
    }

    private func get<T: Decodable>(_ path: String, as _: T.Type, timeout: Int) async throws -> T {
        let response = try await CurlHTTPClient.shared.send(HTTPRequest(url: sim.baseURL + path, timeout: .seconds(timeout)))
        return try JSONDecoder().decode(T.self, from: try sim.check(response))
    }
}

extension SimClient {
    public var plusAuth: PlusAuthSimClient { PlusAuthSimClient(sim: self) }
}
