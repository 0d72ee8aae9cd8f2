import Foundation

/// GitHub's REST API (basic auth with two-factor): `401` with `X-GitHub-OTP: required; app` (or `; sms`); the
/// retry sends the code in `X-GitHub-OTP`. Recognized as octokit.rb does (`/required; (\w+)/i`,
/// `Octokit::OneTimePasswordRequired`).
public struct GitHubOTPTrigger: StepUpTrigger {
    public var header: String
    public var placement: TokenPlacement

    public init(header: String = "X-GitHub-OTP", tokenHeader: String? = nil) {
        self.header = header
        placement = TokenPlacement(header: tokenHeader ?? header)
    }

    public func challenge(in response: ResponseHead, origin: String) -> StepUpChallenge? {
        guard response.status == 401, let value = response.value(header),
              let delivery = value.firstMatch(of: /(?i)required;\s*(\w+)/)?.1 else { return nil }
        return StepUpChallenge(trigger: "github-otp", origin: origin, credential: .oneTimeCode, placement: placement,
                               reason: "one-time password required (delivered by \(delivery))")
    }
}

/// The npm registry: `401` whose `WWW-Authenticate` lists `otp`; the retry sends the code in `npm-otp`.
/// Recognized as npm-registry-fetch does (`lib/check-response.js`: split at commas, lower-cased, equals "otp").
public struct NPMOTPTrigger: StepUpTrigger {
    public var placement: TokenPlacement

    public init(tokenHeader: String = "npm-otp") {
        placement = TokenPlacement(header: tokenHeader)
    }

    public func challenge(in response: ResponseHead, origin: String) -> StepUpChallenge? {
        guard response.status == 401 else { return nil }
        let elements = response.values("WWW-Authenticate").flatMap { $0.split(separator: ",") }
        guard elements.contains(where: { $0.trimmingCharacters(in: .whitespaces).lowercased() == "otp" }) else { return nil }
        return StepUpChallenge(trigger: "npm-otp", origin: origin, credential: .oneTimeCode, placement: placement,
                               reason: "one-time password required")
    }
}
