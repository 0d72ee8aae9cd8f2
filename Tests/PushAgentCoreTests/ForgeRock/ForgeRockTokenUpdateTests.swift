import Foundation
import Testing
@testable import PushAgentCore

/// protocols.md §1.5: the `_action=refresh` call that tells AM a registered mechanism's new push token.
@Suite struct ForgeRockTokenUpdateTests {
    static func credentials(of vector: String, userId: String? = nil) throws -> ForgeRockCredentials {
        var credentials = ForgeRockCredentials(uri: try ForgeRockEnrollmentURI.parse(vector), mechanismUid: "mech-7")
        if let userId { credentials.userId = userId }
        return credentials
    }

    @Test func refreshGoesToTheRegistrationURLWithTheNewToken() async throws {
        let credentials = try Self.credentials(of: FRVectors.uri1 + "&uid=dXNlcjM")
        let request = try await ForgeRockTokenUpdate.request(credentials: credentials, newToken: "relay-token-2",
                                                             deviceName: "build-host")
        #expect(request.method == "POST")
        #expect(request.url == "http://dev.openam.example.com:8081/openam/json/dev/push/sns/message?_action=refresh")
        #expect(request.header("Accept-API-Version") == "resource=1.0, protocol=1.0")
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.header("Cookie") == nil, "a token update answers no push, so no load-balancer cookie")
        let body = try JSONDecoder().decode(ForgeRockTokenUpdate.Body.self, from: request.body)
        #expect(body.mechanismUid == "mech-7" && body.username == "user3")
        #expect(try CompactJWS.algorithm(of: body.jwt) == "HS256")
        let claims = try await ForgeRockServer.verifyTokenUpdate(body, secret: credentials.sharedSecret)
        #expect(claims == ForgeRockTokenUpdateClaims(deviceId: "relay-token-2", deviceName: "build-host",
                                                     deviceType: "android", communicationType: "gcm", mechanismUid: "mech-7"))
    }

    @Test func withoutAUserIdTheBodyHasNoUsername() async throws {
        let request = try await ForgeRockTokenUpdate.request(credentials: try Self.credentials(of: FRVectors.uri1),
                                                             newToken: "t", deviceName: "d")
        let object = try JSONSerialization.jsonObject(with: request.body) as? [String: Any]
        #expect(object?.keys.sorted() == ["jwt", "mechanismUid"])
    }

    @Test func aRegistrationURLWithoutTheActionIsAClearError() async throws {
        var credentials = try Self.credentials(of: FRVectors.uri1)
        credentials.registrationURL = "https://am.example.com/push/register"
        await #expect(throws: ForgeRockTokenUpdate.Failure.noRegistrationAction("https://am.example.com/push/register")) {
            try await ForgeRockTokenUpdate.request(credentials: credentials, newToken: "t", deviceName: "d")
        }
    }

    @Test func theServerRefusesAForeignSecretOrAnotherMechanism() async throws {
        let credentials = try Self.credentials(of: FRVectors.uri1)
        let request = try await ForgeRockTokenUpdate.request(credentials: credentials, newToken: "t", deviceName: "d")
        var body = try JSONDecoder().decode(ForgeRockTokenUpdate.Body.self, from: request.body)
        await #expect(throws: ForgeRockServer.Refusal(message: "the JWT signature does not verify")) {
            try await ForgeRockServer.verifyTokenUpdate(body, secret: Data(repeating: 2, count: 32))
        }
        body.mechanismUid = "mech-8"
        await #expect(throws: ForgeRockServer.Refusal(message: "the JWT is for mechanism 'mech-7', the body names 'mech-8'")) {
            try await ForgeRockServer.verifyTokenUpdate(body, secret: credentials.sharedSecret)
        }
    }
}
