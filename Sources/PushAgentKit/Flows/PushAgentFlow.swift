import ControlClient
import ControlWire
import CurlHTTP
import PushAgentCore

/// Asks pushagentd: the daemon shows the step-up to the user (`pushctl list`, the event stream, notifications) with
/// this program's name, pid and uid as the kernel reports them; once approved it answers with the TOTP code of
/// `totpAccount` (one-time-code challenges) or a receipt signed by the device key (receipt challenges).
public struct PushAgentFlow: StepUpFlow {
    public let client: ControlClient
    /// The account whose code the server expects (id or unique prefix, `pushctl accounts`).
    public let totpAccount: String?
    /// How long the user has to answer.
    public let ttlSeconds: Int

    /// `socketPath` nil: `PUSHAGENT_SOCKET`, the user daemon's socket, else the system one.
    public init(socketPath: String? = nil, totpAccount: String? = nil, ttlSeconds: Int = 120, http: CurlHTTPClient = .shared) {
        client = ControlClient(resolving: socketPath, http: http)
        self.totpAccount = totpAccount
        self.ttlSeconds = ttlSeconds
    }

    public func token(for challenge: StepUpChallenge) async throws -> StepUpToken {
        let answer: StepUpAnswer = challenge.credential == .oneTimeCode ? .totp : .receipt
        if answer == .totp, totpAccount == nil { throw PushAgentFlowError.noTOTPAccount(challenge) }
        let request = StepUpRequest(
            answer: answer, account: answer == .totp ? totpAccount : nil, businessNumber: challenge.businessNumber,
            reason: challenge.reason, audience: challenge.origin, ttlSeconds: ttlSeconds)
        // Not cancelled with the flow: a request the daemon stored must be answered here, to be withdrawn.
        let asked = try await Task { [client] in try await client.requestStepUp(request) }.value
        var current = asked
        while !current.approval.state.isFinal {
            do {
                try Task.checkCancellation()
                current = try await client.stepUp(asked.approval.id, wait: 30)
            } catch where Task.isCancelled {
                // Nobody waits any more: take the question off the user's list rather than leave it to expire.
                await Task { [client] in _ = try? await client.withdrawStepUp(asked.approval.id) }.value
                throw CancellationError()
            }
        }
        let approval = current.approval
        switch approval.state {
        case .approved:
            guard let value = current.code ?? current.receipt else { throw PushAgentFlowError.noAnswer(approval.id) }
            return StepUpToken(value)
        case .denied:
            throw PushAgentFlowError.denied(approvalId: approval.id, reason: approval.resolution?.reason)
        case .expired:
            throw PushAgentFlowError.expired(approvalId: approval.id)
        default:
            throw PushAgentFlowError.failed(approvalId: approval.id, approval.error ?? "no reason given")
        }
    }
}

public enum PushAgentFlowError: Error, Equatable, CustomStringConvertible {
    case noTOTPAccount(StepUpChallenge)
    case denied(approvalId: String, reason: DenyReason?)
    case expired(approvalId: String)
    case failed(approvalId: String, String)
    case noAnswer(String)

    public var description: String {
        switch self {
        case .noTOTPAccount(let challenge):
            "the \(challenge.trigger) challenge wants a one-time code, and no account was given to take it from (PushAgentFlow(totpAccount:), ids in `pushctl accounts`)"
        case .denied(let id, let reason): "step-up \(id) was denied" + (reason == .fraud ? " and reported as fraud" : "")
        case .expired(let id): "step-up \(id) expired before anyone answered it"
        case .failed(let id, let why): "step-up \(id) failed: \(why)"
        case .noAnswer(let id): "step-up \(id) was approved, but pushagentd gave no code or receipt"
        }
    }
}
