import PushAgentKit
import Testing

struct TriggerTests {
    static let origin = "https://api.example.com"

    static func response(_ status: Int, _ headers: [(String, String)]) -> ResponseHead {
        ResponseHead(status: status, headers: headers.map { (name: $0.0, value: $0.1) })
    }

    @Test func rfc9470OnTheRFCsExamples() throws {
        let trigger = BearerStepUpTrigger()
        let acr = try #require(trigger.challenge(
            in: Self.response(401, [("WWW-Authenticate", WWWAuthenticateTests.figure2)]), origin: Self.origin))
        #expect(acr.acrValues == ["myACR"] && acr.maxAge == nil)
        #expect(acr.reason == "A different authentication level is required")
        #expect(acr.credential == .receipt)
        #expect(acr.placement == TokenPlacement(header: "Authorization", prefix: "Bearer "))
        let recency = try #require(trigger.challenge(
            in: Self.response(401, [("www-authenticate", WWWAuthenticateTests.figure3)]), origin: Self.origin))
        #expect(recency.maxAge == 5 && recency.acrValues.isEmpty)
        #expect(acr.key != recency.key, "different demands are different flows")
    }

    @Test func rfc9470BareMaxAgeDPoPAndOtherChallengesAround() throws {
        let header = #"Basic realm="x", DPoP algs="ES256", error="insufficient_user_authentication", max_age=300"#
        let challenge = try #require(BearerStepUpTrigger().challenge(in: Self.response(401, [("WWW-Authenticate", header)]),
                                                                      origin: Self.origin))
        #expect(challenge.maxAge == 300)
        #expect(challenge.placement.prefix == "DPoP ", "the token goes back in the scheme that challenged")
    }

    @Test(arguments: [
        (401, #"Bearer error="invalid_token""#),                                       // another error
        (403, #"Bearer error="insufficient_user_authentication""#),                    // not a 401
        (401, #"Bearer error="insufficient_user_authentication", max_age="soon""#),    // max_age not seconds
        (401, #"Bearer error="insufficient_user_authentication", max_age=-5"#),        // negative
        (401, #"Bearer error="insufficient_user_authentication"#),                     // unterminated quote
        (401, #"Basic error="insufficient_user_authentication""#),                     // scheme not asked for
    ])
    func rfc9470IgnoresWhatIsNotAStepUpChallenge(status: Int, header: String) {
        #expect(BearerStepUpTrigger().challenge(in: Self.response(status, [("WWW-Authenticate", header)]), origin: Self.origin) == nil)
    }

    /// `X-GitHub-OTP: required; sms|app`, as octokit.rb's OneTimePasswordRequired reads it.
    @Test func gitHubOTP() throws {
        let trigger = GitHubOTPTrigger()
        let app = try #require(trigger.challenge(in: Self.response(401, [("X-GitHub-OTP", "required; app")]), origin: Self.origin))
        #expect(app.credential == .oneTimeCode)
        #expect(app.placement == TokenPlacement(header: "X-GitHub-OTP"))
        #expect(app.reason == "one-time password required (delivered by app)")
        #expect(trigger.challenge(in: Self.response(401, [("x-github-otp", "Required; SMS")]), origin: Self.origin)?.reason
            == "one-time password required (delivered by SMS)")
        #expect(trigger.challenge(in: Self.response(401, [("X-GitHub-OTP", "optional")]), origin: Self.origin) == nil)
        #expect(trigger.challenge(in: Self.response(200, [("X-GitHub-OTP", "required; app")]), origin: Self.origin) == nil)
        #expect(trigger.challenge(in: Self.response(401, []), origin: Self.origin) == nil)
    }

    /// npm-registry-fetch's check-response.js: `WWW-Authenticate` split at commas, lower-cased, contains "otp".
    @Test func npmOTP() throws {
        let trigger = NPMOTPTrigger()
        let otp = try #require(trigger.challenge(in: Self.response(401, [("WWW-Authenticate", "OTP")]), origin: Self.origin))
        #expect(otp.placement == TokenPlacement(header: "npm-otp"))
        #expect(trigger.challenge(in: Self.response(401, [("WWW-Authenticate", #"Basic realm="npm", otp"#)]), origin: Self.origin) != nil)
        #expect(trigger.challenge(in: Self.response(401, [("WWW-Authenticate", "ipaddress")]), origin: Self.origin) == nil)
        #expect(trigger.challenge(in: Self.response(403, [("WWW-Authenticate", "otp")]), origin: Self.origin) == nil)
    }

    /// The seed's flag header + business number header, names configurable.
    @Test func headerPair() throws {
        let trigger = HeaderPairTrigger(flagHeader: "X-MFA-Required", businessNumberHeader: "X-MFA-Biz", tokenHeader: "X-MFA-Token")
        let challenge = try #require(trigger.challenge(
            in: Self.response(200, [("x-mfa-required", "TRUE"), ("X-MFA-Biz", "BN-42")]), origin: Self.origin))
        #expect(challenge.businessNumber == "BN-42")
        #expect(challenge.placement == TokenPlacement(header: "X-MFA-Token"))
        #expect(challenge.credential == .receipt)
        let other = trigger.challenge(in: Self.response(200, [("X-MFA-Required", "true"), ("X-MFA-Biz", "BN-43")]), origin: Self.origin)
        #expect(other?.key != challenge.key, "each business number is its own challenge")
        #expect(trigger.challenge(in: Self.response(200, [("X-MFA-Required", "false"), ("X-MFA-Biz", "BN-42")]), origin: Self.origin) == nil)
        #expect(trigger.challenge(in: Self.response(200, [("X-MFA-Required", "true")]), origin: Self.origin) == nil,
                "a flag without a business number names nothing to answer")
    }

    @Test func originsKeepServersApart() {
        #expect(StepUpChallenge.origin(of: "HTTPS://API.Example.com:8443/v1/x?y=1") == "https://api.example.com:8443")
        #expect(StepUpChallenge.origin(of: "http://[::1]:9000/x") == "http://[::1]:9000")
        let a = GitHubOTPTrigger().challenge(in: Self.response(401, [("X-GitHub-OTP", "required; app")]), origin: "https://a.example")
        let b = GitHubOTPTrigger().challenge(in: Self.response(401, [("X-GitHub-OTP", "required; app")]), origin: "https://b.example")
        #expect(a?.key != b?.key)
    }

    @Test func tokensNeverPrintThemselves() {
        let token = StepUpToken("123456")
        #expect(!"\(token)".contains("123456"))
    }
}
