import Foundation

/// The ForgeRock role's admin API, for `pushsim forgerock …`, the harness and the tests.
extension SimAdminClient {
    public func enrollURI(_ request: SimAdminAPI.EnrollURIRequest = .init()) async throws(Failure) -> String {
        let reply: SimAdminAPI.EnrollURIResponse = try await send("POST", "/sim/forgerock/enroll-uri", body: request)
        return reply.uri
    }

    /// A push to `request.account` (default: the account enrolled last).
    public func push(_ request: SimAdminAPI.PushRequest = .init()) async throws(Failure) -> SimAdminAPI.PushResponse {
        try await send("POST", "/sim/forgerock/push", body: request)
    }

    // Not inlined: see `hyphenAnswers`.
    @inline(never)
    public func answers(after: Int = 0, wait: Int = 0) async throws(Failure) -> [SimAdminAPI.Answer] {
        let reply: SimAdminAPI.AnswersResponse = try await page("/sim/forgerock/answers", after: after, wait: wait)
        return reply.answers
    }

    /// Waits for the answer to `messageId`.
    public func answer(to messageId: String, timeout: Int = 15) async throws(Failure) -> SimAdminAPI.Answer {
        try await longPolling(for: timeout, "answer to \(messageId)") { wait throws(Failure) in
            try await answers(wait: wait).last { $0.messageId == messageId }
        }
    }

    /// `POST /sim/forgerock/push-claims`: a push no provider would send, built from the sim's usual one.
    public func pushClaims(_ request: SimAdminAPI.ClaimsPushRequest) async throws(Failure) -> SimAdminAPI.RawPush {
        try await send("POST", "/sim/forgerock/push-claims", body: request)
    }

    /// While `down`, the sim's AM endpoints answer 503.
    public func setOutage(down: Bool) async throws(Failure) {
        let _: SimAdminAPI.Outage = try await send("POST", "/sim/forgerock/outage", body: SimAdminAPI.Outage(down: down))
    }

    public func registrations() async throws(Failure) -> [SimAdminAPI.Registration] {
        let reply: SimAdminAPI.RegistrationsResponse = try await send("GET", "/sim/forgerock/registrations", body: String?.none)
        return reply.registrations
    }

    /// The push token AM (the sim) now sends each account's pushes to.
    public func deviceTokens() async throws(Failure) -> [String: String] {
        Dictionary(try await registrations().map { ($0.account, $0.deviceToken) }) { $1 }
    }
}
