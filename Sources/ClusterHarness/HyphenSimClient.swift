import Foundation
import PushSim

/// pushsim's admin API (Hyphen role), as the tests and the demo drive it: `SimAdminClient`'s calls plus waiting.
public struct HyphenSimClient: Sendable {
    public let admin: SimAdminClient

    public init(baseURL: String) { admin = SimAdminClient(baseURL: baseURL) }

    /// A user; with `existingDevice` it has an account whose phone (the sim) must approve the agent's sign-in.
    public func user(email: String, existingDevice: Bool = false) async throws -> SimAdminAPI.HyphenUser {
        try await admin.hyphenUser(.init(email: email, existingDevice: existingDevice))
    }

    /// Sends a `2fa-request` to the user's agent device; returns the request id.
    public func push(email: String? = nil, expiresIn: Int? = nil, message: String? = nil) async throws -> String {
        try await admin.hyphenPush(.init(email: email, expiresIn: expiresIn, message: message)).id
    }

    /// The sim's phone answers the agent's sign-in request.
    @discardableResult
    public func decide(_ id: String, approve: Bool, push: Bool = true) async throws -> SimAdminAPI.HyphenTwoFactor {
        try await admin.hyphenDecide(id, approve: approve, push: push)
    }

    public func transactions() async throws -> [SimAdminAPI.FlowTransactionRecord] { try await admin.hyphenTransactions() }

    // Not inlined: Swift 6.3.1's optimizer crashes (signal 11 while splitting the coroutine) when this call, with
    // the admin client's typed throws, is inlined into `answer(to:)`'s loop in a release build.
    @inline(never)
    public func answers(after: Int = 0, wait: Int = 0) async throws -> [SimAdminAPI.HyphenAnswer] {
        try await admin.hyphenAnswers(after: after, wait: wait)
    }

    /// Waits for the agent's answer to request `id`.
    public func answer(to id: String, timeout: Int = 30) async throws -> SimAdminAPI.HyphenAnswer {
        guard let answer = try await longPolling(for: .seconds(timeout), { wait in
            try await answers(wait: wait).last { $0.id == id }
        }) else { throw HarnessError("pushsim received no Hyphen answer to \(id) within \(timeout) s") }
        return answer
    }

    /// The sign-in request the agent made for `email`, once pushsim has it.
    public func pendingSignIn(for email: String) async throws -> SimAdminAPI.HyphenTwoFactor {
        var found: SimAdminAPI.HyphenTwoFactor?
        try await eventually("pushsim has the agent's sign-in request for \(email)") {
            found = try await admin.hyphenRequests().last {
                $0.email == email && $0.direction == "from_agent" && $0.status == "pending"
            }
            return found != nil
        }
        return found!
    }
}
