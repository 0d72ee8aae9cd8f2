/// Obtains the token that answers a challenge: asks the user, one way or another. Called once per challenge key
/// however many requests wait; cancelled when none waits any more.
public protocol StepUpFlow: Sendable {
    /// Throw `StepUpCancelled` when the user declines (the waiters fail quietly), any other error when it failed.
    func token(for challenge: StepUpChallenge) async throws -> StepUpToken
}

/// A flow's way of saying the user cancelled: not a failure to report.
public struct StepUpCancelled: Error, Equatable {
    public init() {}
}
