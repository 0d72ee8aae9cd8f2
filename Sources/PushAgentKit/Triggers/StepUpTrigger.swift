/// Recognizes one kind of step-up challenge in a response.
public protocol StepUpTrigger: Sendable {
    /// The challenge `response` carries, or nil when it carries none of this kind (then it goes back to the caller).
    func challenge(in response: ResponseHead, origin: String) -> StepUpChallenge?
}
