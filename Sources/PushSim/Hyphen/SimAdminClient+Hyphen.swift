import Foundation

/// The Hyphen role's admin API, for `pushsim hyphen …`, the harness and the tests.
extension SimAdminClient {
    /// A user; with `existingDevice` it has an account whose phone (the sim) must approve the agent's sign-in.
    public func hyphenUser(_ request: SimAdminAPI.HyphenUserRequest) async throws(Failure) -> SimAdminAPI.HyphenUser {
        try await send("POST", "/sim/hyphen/users", body: request)
    }

    /// Sends a `2fa-request` to the user's agent device.
    public func hyphenPush(_ request: SimAdminAPI.HyphenPushRequest = .init()) async throws(Failure) -> SimAdminAPI.HyphenPushResponse {
        try await send("POST", "/sim/hyphen/push", body: request)
    }

    /// The sim's phone answers the agent's sign-in request.
    @discardableResult
    public func hyphenDecide(_ id: String, approve: Bool, push: Bool = true) async throws(Failure) -> SimAdminAPI.HyphenTwoFactor {
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

    // Not inlined: Swift 6.3.1's optimizer crashes (signal 11 while splitting the coroutine) when this call, with
    // the typed throws, is inlined into `hyphenAnswer(to:)`'s loop in a release build.
    @inline(never)
    public func hyphenAnswers(after: Int = 0, wait: Int = 0) async throws(Failure) -> [SimAdminAPI.HyphenAnswer] {
        let reply: SimAdminAPI.HyphenAnswers = try await page("/sim/hyphen/answers", after: after, wait: wait)
        return reply.answers
    }

    /// Waits for the agent's answer to request `id`.
    public func hyphenAnswer(to id: String, timeout: Int = 30) async throws(Failure) -> SimAdminAPI.HyphenAnswer {
        try await longPolling(for: timeout, "Hyphen answer to \(id)") { wait throws(Failure) in
            try await hyphenAnswers(wait: wait).last { $0.id == id }
        }
    }

    /// The sign-in request the agent made for `email`, once pushsim has it (polled every 50 ms for `timeout`
    /// seconds; the last look starts after the deadline).
    public func hyphenPendingSignIn(for email: String, timeout: Int = 15) async throws(Failure) -> SimAdminAPI.HyphenTwoFactor {
        let deadline = ContinuousClock.now + .seconds(timeout)
        var lastError: Failure?
        while true {
            let last = ContinuousClock.now >= deadline
            do throws(Failure) {
                if let found = try await hyphenRequests().last(where: {
                    $0.email == email && $0.direction == "from_agent" && $0.status == "pending"
                }) { return found }
            } catch {
                lastError = error
            }
            if last { break }
            try? await Task.sleep(for: .milliseconds(50))
        }
        throw Failure(description: "timed out waiting until pushsim has the agent's sign-in request for \(email)"
            + (lastError.map { " (last error: \($0))" } ?? ""))
    }

    /// `POST /sim/hyphen/push-data`: a `2fa-request` push's data, not sent.
    public func hyphenPushData(_ request: SimAdminAPI.HyphenPushRequest = .init()) async throws(Failure) -> SimAdminAPI.RawPush {
        try await send("POST", "/sim/hyphen/push-data", body: request)
    }
}
