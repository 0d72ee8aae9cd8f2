import Foundation

/// The challenge retrier: sends a request; when the response carries a step-up challenge, parks the request on the
/// one flow for that challenge (starting it if none runs), then retries it once with the flow's token.
///
/// Transport-agnostic: `StepUpHTTPClient` puts it over `CurlHTTPClient`, `StepUpMiddleware` (PushAgentKitOpenAPI)
/// over generated OpenAPI clients.
public final class StepUpRetrier: Sendable {
    public let triggers: [any StepUpTrigger]
    private let flows: SharedFlows

    /// `triggers` are asked in order; the first that recognizes a challenge wins. `tokenReuse`: see `SharedFlows`.
    public init(triggers: [any StepUpTrigger], flow: any StepUpFlow, tokenReuse: Duration = .seconds(30)) {
        self.triggers = triggers
        flows = SharedFlows(flow: flow, reuse: tokenReuse)
    }

    /// Requests parked on a step-up right now (a program can say "3 requests wait for your approval").
    public var waitingRequests: Int { flows.waiting }

    public func challenge(in response: ResponseHead, origin: String) -> StepUpChallenge? {
        triggers.lazy.compactMap { $0.challenge(in: response, origin: origin) }.first
    }

    /// Runs one exchange: `attempt(nil)`, and on a challenge `attempt(header)` once with the flow's token.
    /// Throws `StepUpError` when the flow fails, the user cancels, or the retry is challenged again (never loops);
    /// `CancellationError` when this caller is cancelled (the flow goes on for the others).
    public func perform<Response: Sendable>(
        origin: String, head: (Response) -> ResponseHead, attempt: (StepUpHeader?) async throws -> Response
    ) async throws -> Response {
        let sentAt = ContinuousClock.now
        let first = try await attempt(nil)
        guard let challenge = challenge(in: head(first), origin: origin) else { return first }
        let token: StepUpToken
        do {
            token = try await flows.token(for: challenge, sentAt: sentAt)
        } catch let error as CancellationError where Task.isCancelled {
            throw error
        } catch is StepUpCancelled {
            throw StepUpError.cancelled(challenge)
        } catch {
            throw StepUpError.flowFailed(challenge, cause: error)
        }
        let retried = try await attempt(challenge.placement.field(for: token))
        if let again = self.challenge(in: head(retried), origin: origin) {
            throw StepUpError.challengedAgain(challenge, again: again)
        }
        return retried
    }
}

/// How a challenged request failed.
public enum StepUpError: Error, CustomStringConvertible {
    /// The flow failed; every request waiting on it gets this, with the flow's error as `cause`.
    case flowFailed(StepUpChallenge, cause: any Error)
    /// The user declined to take part (the seed's "cancel" code): callers usually stay quiet about it.
    case cancelled(StepUpChallenge)
    /// The retry with the flow's token was challenged again; not retried a second time.
    case challengedAgain(StepUpChallenge, again: StepUpChallenge)

    public var challenge: StepUpChallenge {
        switch self {
        case .flowFailed(let challenge, _), .cancelled(let challenge), .challengedAgain(let challenge, _): challenge
        }
    }

    public var description: String {
        switch self {
        case .flowFailed(let challenge, let cause): "the step-up for the \(challenge) failed: \(cause)"
        case .cancelled(let challenge): "the step-up for the \(challenge) was cancelled"
        case .challengedAgain(let challenge, let again):
            "\(challenge.origin) challenged again after the retry with the step-up token (\(again)); not retrying a second time"
        }
    }
}
