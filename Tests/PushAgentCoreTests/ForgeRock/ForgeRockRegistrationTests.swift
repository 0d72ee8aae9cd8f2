import Foundation
import Testing
@testable import PushAgentCore

@Suite struct ForgeRockRegistrationTests {
    static func register(_ vector: String) async throws -> (ForgeRockEnrollmentURI, OutboundRequest) {
        let uri = try ForgeRockEnrollmentURI.parse(vector)
        let request = try await ForgeRockRegistration.request(uri: uri, mechanismUid: "0b8a6c1e-5e5f-4d6b-9a57-1c2d3e4f5a6b",
                                                              deviceToken: "relay-token-1", deviceName: "build-host")
        return (uri, request)
    }

    // FR-HMAC-1: forgerock-android-sdk PushResponderTest.java testShouldGenerateChallengeResponseCorrectly —
    // the FR-URI-1 registration carries exactly this response, with Accept-API-Version and the cookie.
    @Test func frHMAC1() async throws {
        let (uri, request) = try await Self.register(FRVectors.uri1)
        #expect(request.method == "POST")
        #expect(request.url == uri.registrationURL)
        #expect(request.header("Accept-API-Version") == "resource=1.0, protocol=1.0")
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.header("Cookie") == "amlbcookie=01")
        let body = try TestJWT.body(of: request)
        #expect(body.messageId == "REGISTER:8be951c6-af83-438d-8f74-421bd18650421570561063169")
        #expect(try CompactJWS.algorithm(of: body.jwt) == "HS256")
        let claims = try await ForgeRockServer.verifyRegistration(body.jwt, secret: uri.sharedSecret, challenge: uri.challenge)
        #expect(claims.response == FRVectors.hmac1Response)
        #expect(claims == ForgeRockRegistrationClaims(
            deviceId: "relay-token-1", deviceName: "build-host", deviceType: "android", communicationType: "gcm",
            mechanismUid: "0b8a6c1e-5e5f-4d6b-9a57-1c2d3e4f5a6b", response: FRVectors.hmac1Response))
    }

    // FR-MSG-1 and FR-AUTH-REQ QR codes: DERIVED registration responses.
    @Test func derivedRegistrationResponses() async throws {
        let (uri, request) = try await Self.register(FRVectors.msg1URI)
        let claims = try await ForgeRockServer.verifyRegistration(try TestJWT.body(of: request).jwt, secret: uri.sharedSecret,
                                                                  challenge: uri.challenge)
        #expect(claims.response == FRVectors.msg1RegistrationResponse)
        #expect(uri.issuer == "ForgeRockSandbox")
        #expect(uri.authenticationURL == "http://openam.example.com:8081/openam/json/push/sns/message?_action=authenticate")
        #expect(ForgeRockChallenge.response(secret: FRVectors.authSecret,
                                            challenge: LenientBase64.decode(FRVectors.authRegistrationChallenge)!)
                == FRVectors.authRegistrationResponse)
    }

    @Test func noCookieMeansNoCookieHeader() async throws {
        let (_, request) = try await Self.register(ForgeRockEnrollmentURITests.replacing("l", in: FRVectors.uri1, with: nil))
        #expect(request.header("Cookie") == nil)
    }

    @Test func credentialsComeFromTheURI() throws {
        let uri = try ForgeRockEnrollmentURI.parse(FRVectors.uri1 + "&uid=dXNlcjM")
        let credentials = ForgeRockCredentials(uri: uri, mechanismUid: "m-1")
        #expect(credentials == ForgeRockCredentials(mechanismUid: "m-1", sharedSecret: uri.sharedSecret,
                                                    authenticationURL: uri.authenticationURL,
                                                    registrationURL: uri.registrationURL, userId: "user3"))
        let stored = try JSONDecoder().decode(ForgeRockCredentials.self, from: JSONEncoder().encode(credentials))
        #expect(stored == credentials)
    }
}
