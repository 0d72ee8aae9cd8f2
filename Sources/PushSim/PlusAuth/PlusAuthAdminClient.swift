/// The PlusAuth role's admin API from the outside (`pushsim plusauth enroll-uri|push|answers`).
extension SimAdminClient {
    public func plusAuthEnrollURI(_ request: SimAdminAPI.PlusAuth.EnrollURIRequest) async throws(Failure) -> String {
        let reply: SimAdminAPI.EnrollURIResponse = try await send("POST", "/sim/plusauth/enroll-uri", body: request)
        return reply.uri
    }

    public func plusAuthPush(_ request: SimAdminAPI.PlusAuth.PushRequest) async throws(Failure) -> SimAdminAPI.PlusAuth.PushResponse {
        try await send("POST", "/sim/plusauth/push", body: request)
    }

    public func plusAuthAnswers(after: Int, wait: Int) async throws(Failure) -> [SimAdminAPI.PlusAuth.Answer] {
        let reply: SimAdminAPI.PlusAuth.AnswersResponse = try await send(
            "GET", "/sim/plusauth/answers?after=\(after)&wait=\(wait)", body: String?.none, timeout: wait + 10)
        return reply.answers
    }
}
