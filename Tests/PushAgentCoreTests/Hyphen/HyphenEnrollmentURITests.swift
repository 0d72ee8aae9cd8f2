import Foundation
import Testing
@testable import PushAgentCore

@Suite struct HyphenEnrollmentURITests {
    @Test func minimalURIUsesTheChainsEndpoints() throws {
        guard let uri = try EnrollmentURI.parse("hyphen://account/Swirl:john%40acme.com?secret=s3cr3t&chain=flow-mainnet").details(as: HyphenEnrollmentURI.self)
        else { Issue.record("expected a Hyphen URI"); return }
        #expect(uri.appName == "Swirl" && uri.email == "john@acme.com" && uri.appSecret == "s3cr3t")
        #expect(uri.chain == .mainnet && uri.apiURL == "https://api.hyphen.at")
        #expect(uri.accessNodeURL == "https://rest-mainnet.onflow.org")
        #expect(uri.chain.paymaster.hex == "d998bea00bb8d39c" && HyphenChain.testnet.paymaster.hex == "e22cea2c515f26e6")
    }

    @Test func renderedURIRoundTrips() throws {
        let uri = HyphenEnrollmentURI(appName: "Push Sim", email: "alice+1@example.com", appSecret: "a/b+c=d",
                                      chain: .testnet, apiURL: "http://127.0.0.1:4000", accessNodeURL: "http://127.0.0.1:4000/flow")
        #expect(uri.uriString.hasPrefix("hyphen://account/Push%20Sim:alice%2B1@example.com?secret=a%2Fb%2Bc%3Dd&chain=flow-testnet&api="))
        #expect(try HyphenEnrollmentURI.parse(uri.uriString) == uri)
        #expect(try EnrollmentURI.parse(uri.uriString).provider == .hyphen)
    }

    @Test func summaryNeverShowsTheAppSecret() throws {
        let summary = try EnrollmentURI.parse("hyphen://account/Swirl:john@acme.com?secret=s3cr3t&chain=flow-testnet").summary
        #expect(summary["provider"] == "Hyphen" && summary["account"] == "john@acme.com" && summary["chain"] == "flow-testnet")
        #expect(!summary.values.joined().contains("s3cr3t"))
    }

    @Test func badURIsSayWhatToFix() {
        let cases: [(String, String)] = [
            ("hyphen://device/Swirl:john?secret=s&chain=flow-mainnet", "hyphen URI: the type must be 'account', not 'device'"),
            ("hyphen://account/Swirl?secret=s&chain=flow-mainnet", "hyphen URI: the label (issuer:account) must be App:email"),
            ("hyphen://account/:john?secret=s&chain=flow-mainnet", "hyphen URI: the label (issuer:account) must be App:email"),
            ("hyphen://account/Swirl:john?chain=flow-mainnet", "hyphen URI: parameter 'secret' (app secret) is missing"),
            ("hyphen://account/Swirl:john?secret=s", "hyphen URI: parameter 'chain' (Flow network) is missing"),
            ("hyphen://account/Swirl:john?secret=s&chain=ethereum",
             "hyphen URI: parameter 'chain' (Flow network) must be flow-mainnet or flow-testnet, not 'ethereum'"),
            ("hyphen://account/Swirl:john?secret=s&chain=flow-mainnet&api=Zm9v",
             "hyphen URI: parameter 'api' (Hyphen API) must be an http(s) URL, not 'foo'"),
        ]
        for (uri, message) in cases {
            expectError(message) { try EnrollmentURI.parse(uri) }
        }
    }
}
