import PushAgentKit
import Testing

/// RFC 9110 §11.6.1 challenges, on RFC 9470 §3's examples (Figures 2 and 3, as also kept verbatim in
/// hstern/go-stepup `internal/specfixtures/rfc9470_section3_fig2.txt` and `_fig3.txt`) and on malformed fields.
struct WWWAuthenticateTests {
    static let figure2 = #"Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", acr_values="myACR""#
    static let figure3 = #"Bearer error="insufficient_user_authentication", error_description="More recent authentication is required", max_age="5""#

    @Test func rfc9470Figure2() throws {
        let challenges = try WWWAuthenticate.parse(Self.figure2)
        #expect(challenges.count == 1)
        let challenge = try #require(challenges.first)
        #expect(challenge.scheme == "Bearer")
        #expect(challenge["error"] == "insufficient_user_authentication")
        #expect(challenge["error_description"] == "A different authentication level is required")
        #expect(challenge["acr_values"] == "myACR")
        #expect(challenge["max_age"] == nil)
    }

    @Test func rfc9470Figure3() throws {
        let challenge = try #require(try WWWAuthenticate.parse(Self.figure3).first)
        #expect(challenge["max_age"] == "5")
        #expect(challenge["error_description"] == "More recent authentication is required")
    }

    @Test func theRFCsFoldedLayoutParsesToo() throws {
        // The RFC prints the field over several lines; a client that joins the lines sees runs of spaces.
        let folded = "Bearer error=\"insufficient_user_authentication\",\n  error_description=\"x\",\n  acr_values=\"myACR\""
            .replacingOccurrences(of: "\n", with: "")
        #expect(try WWWAuthenticate.parse(folded).first?["acr_values"] == "myACR")
    }

    @Test func bareValuesCaseInsensitiveNamesAndEscapes() throws {
        let challenge = try #require(try WWWAuthenticate.parse(
            #"Bearer Error=insufficient_user_authentication, MAX_AGE = 300 , error_description="say \"again\"""#).first)
        #expect(challenge["error"] == "insufficient_user_authentication")
        #expect(challenge["max_age"] == "300")
        #expect(challenge["error_description"] == #"say "again""#)
    }

    @Test func severalChallengesAndFields() throws {
        let challenges = try WWWAuthenticate.parse([
            #"Basic realm="registry", , DPoP algs="ES256 PS256", error="insufficient_user_authentication", max_age=0"#,
            "Negotiate abc+/def==, OTP",
        ])
        #expect(challenges.map(\.scheme) == ["Basic", "DPoP", "Negotiate", "OTP"])
        #expect(challenges[0]["realm"] == "registry")
        #expect(challenges[1]["algs"] == "ES256 PS256")
        #expect(challenges[1]["max_age"] == "0")
        #expect(challenges[2].token68 == "abc+/def==")
        #expect(challenges[3].parameters.isEmpty && challenges[3].token68 == nil)
    }

    @Test(arguments: [
        (#"Bearer error="insufficient_user_authentication"#, "quoted string is not closed"),
        (#"Bearer error="insufficient_user_authentication", max_age="#, "expected a token or a quoted string as the value of 'max_age'"),
        (#"Negotiate abc== def"#, "as the value of 'abc'"),
        (#"Bearer realm="x" scope="y""#, "expected ',' between parameters"),
        (#"Bearer realm="x", realm="y""#, "occurs twice"),
        ("Bearer realm=\"a\u{01}b\"", "control character"),
        (#"@Bearer realm="x""#, "expected an auth-scheme"),
        ("Bearer foo bar", "expected '=' after parameter 'foo'"),
        (#"Bearer realm="x\"#, "a '\\' ends the quoted string"),
    ])
    func malformedFieldsSayWhere(field: String, problem: String) throws {
        let error = try #require(throws: WWWAuthenticateError.self) { try WWWAuthenticate.parse(field) }
        #expect(error.description.contains(problem), "\(field): \(error)")
        #expect(error.offset <= field.utf8.count)
    }

    @Test func emptyAndSeparatorOnlyFieldsHaveNoChallenges() throws {
        #expect(try WWWAuthenticate.parse("").isEmpty)
        #expect(try WWWAuthenticate.parse(" , ,").isEmpty)
    }
}
