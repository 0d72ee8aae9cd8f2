/// The PlusAuth role's admin API, for `pushsim plusauth …`, the harness and the tests.
extension SimAdminClient {
    /// An `otpauth://push` URI; `request.algorithm` is the TOTP hash (SHA1, SHA256, SHA512).
    public func plusAuthEnrollURI(_ request: SimAdminAPI.PlusAuth.EnrollURIRequest = .init()) async throws(Failure) -> String {
        let reply: SimAdminAPI.EnrollURIResponse = try await send("POST", "/sim/plusauth/enroll-uri", body: request)
        return reply.uri
    }

    public func plusAuthPush(_ request: SimAdminAPI.PlusAuth.PushRequest = .init()) async throws(Failure)
        -> SimAdminAPI.PlusAuth.PushResponse {
        try await send("POST", "/sim/plusauth/push", body: request)
    }

    // Not inlined: see `hyphenAnswers`.
    @inline(never)
    public func plusAuthAnswers(after: Int = 0, wait: Int = 0) async throws(Failure) -> [SimAdminAPI.PlusAuth.Answer] {
        let reply: SimAdminAPI.PlusAuth.AnswersResponse = try await page("/sim/plusauth/answers", after: after, wait: wait)
        return reply.answers
    }

    /// Waits for the answer to `pushId`.
    public func plusAuthAnswer(to pushId: String, timeout: Int = 15) async throws(Failure) -> SimAdminAPI.PlusAuth.Answer {
        try await longPolling(for: timeout, "answer to \(pushId)") { wait throws(Failure) in
            try await plusAuthAnswers(wait: wait).last { $0.pushId == pushId }
        }
    }

    /// `POST /sim/plusauth/push-claims`: a push no provider would send, built from the sim's usual one.
    public func plusAuthPushClaims(_ request: SimAdminAPI.ClaimsPushRequest) async throws(Failure) -> SimAdminAPI.RawPush {
        try await send("POST", "/sim/plusauth/push-claims", body: request)
    }

    public func plusAuthRegistrations() async throws(Failure) -> [SimAdminAPI.PlusAuth.Registration] {
        let reply: SimAdminAPI.PlusAuth.RegistrationsResponse = try await send(
            "GET", "/sim/plusauth/registrations", body: String?.none, timeout: 10)
        return reply.registrations
    }
}
