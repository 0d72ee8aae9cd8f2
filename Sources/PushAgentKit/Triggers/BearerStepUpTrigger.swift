/// RFC 9470 (OAuth 2.0 Step Up Authentication Challenge): `401` with
/// `WWW-Authenticate: Bearer error="insufficient_user_authentication"` and `acr_values` and/or `max_age`
/// (quoted as in the RFC's examples, or bare as some servers send it). The `DPoP` scheme (RFC 9449) too.
public struct BearerStepUpTrigger: StepUpTrigger {
    public static let error = "insufficient_user_authentication"
    public var schemes: [String]
    /// Where the token goes; nil: `Authorization: <scheme> <token>`, in the scheme that challenged.
    public var placement: TokenPlacement?
    public var credential: StepUpChallenge.Credential

    public init(schemes: [String] = ["Bearer", "DPoP"], placement: TokenPlacement? = nil,
                credential: StepUpChallenge.Credential = .receipt) {
        self.schemes = schemes
        self.placement = placement
        self.credential = credential
    }

    /// A field that does not parse, or a `max_age` that is not a number of seconds, is no challenge: the 401 goes
    /// back to the caller rather than an MFA prompt starting on a garbled demand.
    public func challenge(in response: ResponseHead, origin: String) -> StepUpChallenge? {
        guard response.status == 401,
              let challenges = try? WWWAuthenticate.parse(response.values("WWW-Authenticate")) else { return nil }
        for challenge in challenges where schemes.contains(where: challenge.hasScheme) && challenge["error"] == Self.error {
            let acrValues = challenge["acr_values"].map { $0.split(separator: " ").map(String.init) } ?? []
            var maxAge: Int?
            if let raw = challenge["max_age"] {
                guard let seconds = Int(raw), seconds >= 0 else { return nil }
                maxAge = seconds
            }
            return StepUpChallenge(
                trigger: "rfc9470", origin: origin, credential: credential,
                placement: placement ?? TokenPlacement(header: "Authorization", prefix: challenge.scheme + " "),
                reason: challenge["error_description"], acrValues: acrValues, maxAge: maxAge)
        }
        return nil
    }
}
