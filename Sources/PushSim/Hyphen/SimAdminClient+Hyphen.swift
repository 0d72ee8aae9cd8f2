import Foundation

/// The Hyphen role's admin API, for `pushsim hyphen …`.
extension SimAdminClient {
    public func hyphenUser(_ request: SimAdminAPI.HyphenUserRequest) async throws(Failure) -> SimAdminAPI.HyphenUser {
        try await send("POST", "/sim/hyphen/users", body: request)
    }

    public func hyphenPush(_ request: SimAdminAPI.HyphenPushRequest) async throws(Failure) -> SimAdminAPI.HyphenPushResponse {
        try await send("POST", "/sim/hyphen/push", body: request)
    }

    public func hyphenDecide(_ id: String, approve: Bool, push: Bool) async throws(Failure) -> SimAdminAPI.HyphenTwoFactor {
        let escaped = id.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "-_."))) ?? id
        return try await send("POST", "/sim/hyphen/requests/\(escaped)/\(approve ? "approve" : "deny")",
                              body: SimAdminAPI.HyphenDecision(push: push))
    }

    public func hyphenRequests() async throws(Failure) -> [SimAdminAPI.HyphenTwoFactor] {
        let reply: SimAdminAPI.HyphenTwoFactors = try await send("GET", "/sim/hyphen/requests", body: String?.none)
        return reply.requests
    }

    public func hyphenTransactions() async throws(Failure) -> [SimAdminAPI.FlowTransactionRecord] {
        let reply: SimAdminAPI.FlowTransactionRecords = try await send("GET", "/sim/hyphen/transactions", body: String?.none)
        return reply.transactions
    }

    public func hyphenAnswers(after: Int, wait: Int) async throws(Failure) -> [SimAdminAPI.HyphenAnswer] {
        let reply: SimAdminAPI.HyphenAnswers = try await send(
            "GET", "/sim/hyphen/answers?after=\(after)&wait=\(wait)", body: String?.none, timeout: wait + 10)
        return reply.answers
    }
}
