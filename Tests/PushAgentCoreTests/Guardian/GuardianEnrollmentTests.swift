import Foundation
import Testing
@testable import PushAgentCore

@Suite struct GuardianEnrollmentTests {
    typealias S = GuardianSamples

    static func uri(baseURL: String = "https%3A%2F%2Ftenant.eu.auth0.com") throws -> GuardianEnrollmentURI {
        try GuardianEnrollmentURI.parse("otpauth://totp/Tenant:bob?secret=JBSWY3DPEHPK3PXP&enrollment_tx_id=tx123"
            + "&issuer=Tenant&base_url=\(baseURL)")
    }

    @Test func theRequestAsTheSDKsSendIt() throws {
        let request = try GuardianEnrollment.request(uri: Self.uri(), key: S.key, deviceIdentifier: "pushagent-device-1",
                                                     deviceName: "build-host", pushToken: "relay-token-1")
        #expect(request.method == "POST")
        #expect(request.url == "https://tenant.eu.auth0.com/appliance-mfa/api/enroll")
        #expect(request.header("Authorization") == #"Ticket id="tx123""#)
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.header("Auth0-Client") == "eyJuYW1lIjoicHVzaGFnZW50IiwidmVyc2lvbiI6IjEifQ")
        let json = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
        #expect(Set(json.keys) == ["identifier", "name", "push_credentials", "public_key"])
        #expect(json["identifier"] as? String == "pushagent-device-1" && json["name"] as? String == "build-host")
        #expect(json["push_credentials"] as? [String: String] == ["service": "GCM", "token": "relay-token-1"])
        let jwk = try #require(json["public_key"] as? [String: String])
        #expect(Set(jwk.keys) == ["kty", "alg", "use", "n", "e"])
        #expect(jwk["kty"] == "RSA" && jwk["alg"] == "RS256" && jwk["use"] == "sig" && jwk["e"] == "AQAB")
        let modulus = try #require(LenientBase64.decode(jwk["n"]!))
        #expect(modulus.count == 256 && modulus.first != 0, "2048 bits, minimal big-endian")
        #expect(try GuardianServer.publicKey(GuardianJWK(n: jwk["n"]!, e: jwk["e"]!)).derRepresentation
                == S.key.privateKey.publicKey.derRepresentation)
    }

    @Test func theBashReadmeReplyBecomesCredentials() throws {
        let uri = try Self.uri()
        let credentials = try GuardianEnrollment.credentials(reply: Data(GuardianVectors.enrollmentReply.utf8), uri: uri,
                                                             key: S.key, deviceIdentifier: "pushagent-device-1")
        #expect(credentials.enrollmentId == "dev_ztaIUOx5Z3zeRimt")
        #expect(credentials.userId == "auth0|5fadc2e53f6a96006f998832")
        #expect(credentials.deviceToken == "191YCA4wYITisPHHSGrgZOiJvADmIA...")
        #expect(credentials.deviceIdentifier == "pushagent-device-1")
        #expect(credentials.apiBaseURL == "https://tenant.eu.auth0.com/appliance-mfa")
        #expect(credentials.totp == (try TOTPParameters(secret: Base32.decode("GRXC4KC5KUYWCZDDLVFFIWB6IB2UKLBF")!)),
                "the reply's TOTP, not the QR code's")
        #expect(try credentials.deviceKey().derRepresentation == S.key.derRepresentation)
        let stored = try JSONDecoder().decode(GuardianCredentials.self, from: JSONEncoder().encode(credentials))
        #expect(stored == credentials)
    }

    @Test func withoutTOTPInTheReplyTheQRCodesCodesStay() throws {
        let uri = try Self.uri()
        let reply = #"{"id":"dev_1","user_id":"u","token":"t","url":"https://x","issuer":"X"}"#
        let credentials = try GuardianEnrollment.credentials(reply: Data(reply.utf8), uri: uri, key: S.key, deviceIdentifier: "d")
        #expect(credentials.totp == uri.totp)
    }

    @Test(arguments: [
        (#"{"user_id":"u","token":"t"}"#, "Guardian's enrollment reply has no 'id'"),
        (#"{"id":"dev_1","token":"t"}"#, "Guardian's enrollment reply has no 'user_id'"),
        (#"{"id":"dev_1","user_id":"u","token":""}"#, "Guardian's enrollment reply has no 'token'"),
        (#"{"id":"dev_1","user_id":"u","token":"t","totp":{"secret":"1"}}"#, "Guardian's enrollment reply has unusable TOTP settings: 'secret' is missing or not base32"),
        (#"{"id":"dev_1","user_id":"u","token":"t","totp":{"secret":"JBSWY3DP","algorithm":"MD5"}}"#, "Guardian's enrollment reply has unusable TOTP settings: 'algorithm' must be SHA1, SHA256 or SHA512"),
        (#"{"id":"dev_1","user_id":"u","token":"t","totp":{"secret":"JBSWY3DP","digits":4}}"#, "Guardian's enrollment reply has unusable TOTP settings: TOTP codes must have 6 to 8 digits, not 4"),
    ])
    func unusableRepliesSayWhatIsMissing(_ reply: String, _ message: String) throws {
        let uri = try Self.uri()
        expectError(message) {
            try GuardianEnrollment.credentials(reply: Data(reply.utf8), uri: uri, key: S.key, deviceIdentifier: "d")
        }
    }

    @Test func notJSONIsUnreadable() throws {
        let uri = try Self.uri()
        #expect(throws: GuardianEnrollment.Failure.self) {
            try GuardianEnrollment.credentials(reply: Data("<html>".utf8), uri: uri, key: S.key, deviceIdentifier: "d")
        }
    }
}

@Suite struct GuardianDeviceAccountTests {
    typealias S = GuardianSamples
    static let url = "https://tenant.eu.auth0.com/appliance-mfa/api/device-accounts/dev_ztaIUOx5Z3zeRimt"

    @Test func pushTokenUpdateSignsAJWT() async throws {
        let request = try await GuardianDeviceAccount.updatePushToken(credentials: S.credentials(), newToken: "new-token", at: S.now)
        #expect(request.method == "PATCH" && request.url == Self.url)
        #expect(request.header("Content-Type") == "application/json")
        #expect(String(decoding: request.body, as: UTF8.self) == #"{"push_credentials":{"service":"GCM","token":"new-token"}}"#)
        let bearer = try #require(request.header("Authorization"))
        #expect(bearer.hasPrefix("Bearer "))
        let claims = try await GuardianServer.verifyDeviceAccountJWT(String(bearer.dropFirst(7)),
                                                                     publicKey: S.key.privateKey.publicKey)
        #expect(claims == GuardianDeviceAccountClaims(
            iat: 1_700_000_000, exp: 1_700_007_200, aud: "https://tenant.eu.auth0.com/appliance-mfa/api/device-accounts",
            iss: "dev_ztaIUOx5Z3zeRimt", sub: "auth0|5fadc2e53f6a96006f998832"))
    }

    @Test func unenrollIsADeleteWithoutBody() async throws {
        let request = try await GuardianDeviceAccount.delete(credentials: S.credentials(), at: S.now)
        #expect(request.method == "DELETE" && request.url == Self.url && request.body.isEmpty)
        #expect(request.header("Content-Type") == nil)
        #expect(request.header("Authorization")?.hasPrefix("Bearer ey") == true)
    }

    @Test func theDeviceTokenIsTheFallback() async throws {
        let delete = try await GuardianDeviceAccount.delete(credentials: S.credentials(), authorization: .deviceToken, at: S.now)
        #expect(delete.header("Authorization") == "Bearer 191YCA4wYITisPHHSGrgZOiJvADmIA...")
        let update = try await GuardianDeviceAccount.updatePushToken(credentials: S.credentials(), newToken: "n",
                                                                     authorization: .deviceToken, at: S.now)
        #expect(update.header("Authorization") == "Bearer 191YCA4wYITisPHHSGrgZOiJvADmIA...")
    }

    @Test func anOddEnrollmentIdStaysInItsSegment() async throws {
        var credentials = S.credentials()
        credentials.enrollmentId = "dev/../x y"
        let request = try await GuardianDeviceAccount.delete(credentials: credentials, authorization: .deviceToken, at: S.now)
        #expect(request.url == "https://tenant.eu.auth0.com/appliance-mfa/api/device-accounts/dev%2F..%2Fx%20y")
    }
}
