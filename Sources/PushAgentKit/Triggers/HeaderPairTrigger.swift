import Foundation

/// The seed's pattern ("The principle of MFA"): a flag header says a challenge is required, a second header carries
/// the challenge's business number, and the retry carries the flow's token in a third. Any status.
public struct HeaderPairTrigger: StepUpTrigger {
    public var flagHeader: String
    /// The flag's value that means "challenge required" (compared case-insensitively).
    public var flagValue: String
    public var businessNumberHeader: String
    public var placement: TokenPlacement
    public var credential: StepUpChallenge.Credential

    public init(flagHeader: String = "X-Risk-Challenge-Enable-Flow", flagValue: String = "true",
                businessNumberHeader: String = "X-Risk-Challenge-Biz-No",
                tokenHeader: String = "X-Risk-Challenge-Token", credential: StepUpChallenge.Credential = .receipt) {
        self.flagHeader = flagHeader
        self.flagValue = flagValue
        self.businessNumberHeader = businessNumberHeader
        placement = TokenPlacement(header: tokenHeader)
        self.credential = credential
    }

    /// Both headers are needed: a flag without a business number names no challenge to answer.
    public func challenge(in response: ResponseHead, origin: String) -> StepUpChallenge? {
        guard let flag = response.value(flagHeader), flag.trimmed.lowercased() == flagValue.lowercased(),
              let businessNumber = response.value(businessNumberHeader)?.trimmed, !businessNumber.isEmpty
        else { return nil }
        return StepUpChallenge(trigger: "header-pair", origin: origin, credential: credential, placement: placement,
                               businessNumber: businessNumber)
    }
}

extension String {
    var trimmed: String { trimmingCharacters(in: .whitespaces) }
}
