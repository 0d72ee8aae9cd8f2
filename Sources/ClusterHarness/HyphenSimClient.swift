import CurlHTTP
import Foundation

/// pushsim's admin API (Hyphen role), as the tests and the demo drive it.
public struct HyphenSimClient: Sendable {
    public let baseURL: String
    private var admin: SimClient { SimClient(baseURL: baseURL) }

    public init(baseURL: String) { self.baseURL = baseURL }

    public struct User: Decodable, Sendable {
        public var email: String
        public var uri: String
        public var credential: String
        public var address: String?
    }

    public struct TwoFactor: Decodable, Sendable {
        public var id: String
        public var email: String
        public var direction: String
        public var status: String
        public var txId: String?
        public var requesterPublicKey: String
        enum CodingKeys: String, CodingKey {
            case id, email, direction, status, txId = "tx_id", requesterPublicKey = "requester_public_key"
        }
    }

    public struct Answer: Decodable, Sendable {
        public var seq: Int
        public var id: String
        public var outcome: String
        public var txId: String?
        public var verified: Bool
        public var error: String?
        enum CodingKeys: String, CodingKey { case seq, id, outcome, txId = "tx_id", verified, error }
    }

    public struct Transaction: Decodable, Sendable {
        public var id: String
        public var proposer: String
        public var keyIndex: UInt32
        public var script: String
        public var status: String
        public var payloadSigners: [String]
        public var envelopeSigners: [String]
        enum CodingKeys: String, CodingKey {
            case id, proposer, keyIndex = "key_index", script, status
            case payloadSigners = "payload_signers", envelopeSigners = "envelope_signers"
        }
    }

    /// A user; with `existingDevice` it has an account whose phone (the sim) must approve the agent's sign-in.
    public func user(email: String, existingDevice: Bool = false) async throws -> User {
        try await admin.post("/sim/hyphen/users", ["email": email, "existing_device": existingDevice])
    }

    /// Sends a `2fa-request` to the user's agent device; returns the request id.
    public func push(email: String? = nil, expiresIn: Int? = nil, message: String? = nil) async throws -> String {
        struct Reply: Decodable { var id: String }
        var body: [String: Any] = [:]
        if let email { body["email"] = email }
        if let expiresIn { body["expires_in"] = expiresIn }
        if let message { body["message"] = message }
        let reply: Reply = try await admin.post("/sim/hyphen/push", body)
        return reply.id
    }

    /// The sim's phone answers the agent's sign-in request.
    public func decide(_ id: String, approve: Bool, push: Bool = true) async throws -> TwoFactor {
        try await admin.post("/sim/hyphen/requests/\(id)/\(approve ? "approve" : "deny")", ["push": push])
    }

    public func requests() async throws -> [TwoFactor] {
        struct Reply: Decodable { var requests: [TwoFactor] }
        return try await get("/sim/hyphen/requests", as: Reply.self).requests
    }

    public func transactions() async throws -> [Transaction] {
        struct Reply: Decodable { var transactions: [Transaction] }
        return try await get("/sim/hyphen/transactions", as: Reply.self).transactions
    }

    public func answers(after: Int = 0, wait: Int = 0) async throws -> [Answer] {
        struct Reply: Decodable { var answers: [Answer] }
        return try await get("/sim/hyphen/answers?after=\(after)&wait=\(wait)", as: Reply.self, timeout: wait + 10).answers
    }

    /// Waits for the agent's answer to request `id`.
    public func answer(to id: String, timeout: Int = 30) async throws -> Answer {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while ContinuousClock.now < deadline {
            if let answer = try await answers(wait: 1).last(where: { $0.id == id }) { return answer }
        }
        throw HarnessError("pushsim received no Hyphen answer to \(id) within \(timeout) s")
    }

    /// The sign-in request the agent made for `email`, once it exists.
    public func pendingSignIn(for email: String) async throws -> TwoFactor {
        var found: TwoFactor?
        try await eventually("pushsim has the agent's sign-in request for \(email)") {
            found = try await requests().last { $0.email == email && $0.direction == "from_agent" && $0.status == "pending" }
            return found != nil
        }
        return found!
    }

    private func get<T: Decodable>(_ path: String, as _: T.Type, timeout: Int = 30) async throws -> T {
        let response = try await CurlHTTPClient.shared.send(HTTPRequest(url: baseURL + path, timeout: .seconds(timeout)))
        return try JSONDecoder().decode(T.self, from: try admin.check(response))
    }
}
