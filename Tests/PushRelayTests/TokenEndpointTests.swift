import CurlHTTP
import Foundation
import GRDB
import JWTKit
import Testing
@testable import PushRelay

/// `POST /token` (RFC 7523 JWT-bearer grant, as Google's token endpoint) and the access tokens it issues.
/// Serialized, and one relay per test, so that the suite does not crowd the machine's two cores when everything runs.
@Suite("OAuth2 token endpoint", .serialized)
struct TokenEndpointTests {
    private let account = TestServiceAccount.main

    @Test func assertionBuysATokenThatSends() async throws {
        try await withRelay(serviceAccountKeys: [account.registration()]) { relay in
            let device = try await relay.register()
            let response = try await relay.tokenRequest(assertion: account.assertion())
            #expect(response.status == 200, "\(response.text)")
            let body = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
            #expect(body["token_type"] as? String == "Bearer")
            #expect(body["expires_in"] as? Int == 3600)
            let token = try #require(body["access_token"] as? String)
            #expect(token.count >= 43)  // 32 random bytes, base64url
            #expect(response.header("cache-control") == "no-store")

            #expect(try await relay.send(to: device, ["data": ["via": "oauth"]], key: token).status == 200)
            #expect(try await relay.poll(device).messages.map { $0.data["via"] } == ["oauth"])
            #expect(try await relay.metric("pushrelay_access_tokens_issued_total") == 1)
        }
    }

    @Test func aKeyRemovedFromTheConfigurationLosesItsTokensAtRestart() async throws {
        let directory = try makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var relay = try await TestRelay.start(stateDirectory: directory, serviceAccountKeys: [account.registration()])
        let device = try await relay.register()
        let token = try await relay.accessToken()
        #expect(try await relay.send(to: device, key: token).status == 200)
        try await relay.stop()

        relay = try await TestRelay.start(stateDirectory: directory, serviceAccountKeys: [account.registration()])
        #expect(try await relay.send(to: device, key: token).status == 200, "a configured key's token outlives a restart")
        try await relay.stop()

        relay = try await TestRelay.start(stateDirectory: directory)
        #expect(try await relay.send(to: device, key: token).status == 401, "its key is gone: so is the token")
        try await relay.stop()
        relay = try await TestRelay.start(stateDirectory: directory, serviceAccountKeys: [account.registration()])
        #expect(try await relay.send(to: device, key: token).status == 401, "putting the key back does not revive it")
        try await relay.stop()
    }

    /// google-auth names Google's token URL; other clients name the URL they post to, however it is spelled.
    @Test func acceptedAudiences() async throws {
        try await withRelay(serviceAccountKeys: [account.registration()]) { relay in
            let port = try #require(relay.baseURL.split(separator: ":").last)
            for audience in [googleTokenURL, "https://accounts.google.com/o/oauth2/token", "https://www.googleapis.com/oauth2/v4/token",
                             relay.baseURL + "/token", "HTTP://127.0.0.1:\(port)/token"] {
                let response = try await relay.tokenRequest(assertion: account.assertion(account.claims(aud: audience)))
                #expect(response.status == 200, "\(audience): \(response.text)")
            }
        }
    }

    @Test func configuredPublicURLPinsTheRelaysOwnAudience() async throws {
        try await withRelay(serviceAccountKeys: [account.registration()], publicURL: "https://relay.example/push/") { relay in
            let pinned = try await relay.tokenRequest(assertion: account.assertion(account.claims(aud: "https://relay.example:443/push/token")))
            #expect(pinned.status == 200, "\(pinned.text)")
            let asReached = try await relay.tokenRequest(assertion: account.assertion(account.claims(aud: relay.baseURL + "/token")))
            #expect(try oauthError(asReached).error == "invalid_grant")
        }
    }

    /// The header's kid picks the key when it is the relay's key id; an id it does not know (Google's) leaves all keys.
    @Test func keyIDInTheHeader() async throws {
        let registration = try account.registration()
        try await withRelay(serviceAccountKeys: [TestServiceAccount.second.registration(for: otherProject), registration]) { relay in
            for kid in [registration.keyID, "0123456789abcdef0123456789abcdef01234567"] {
                let response = try await relay.tokenRequest(assertion: account.assertion(kid: kid))
                #expect(response.status == 200, "\(kid): \(response.text)")
            }
        }
    }

    @Test func refusedClaims() async throws {
        let now = Date().timeIntervalSince1970.rounded(.down)
        typealias Claims = TestServiceAccount.Claims
        let cases: [(name: String, claims: Claims, error: String)] = [
            ("expired", Claims(iss: "a@b", aud: googleTokenURL, scope: fcmScope, iat: now - 7200, exp: now - 3600), "invalid_grant"),
            ("issued in the future", Claims(iss: "a@b", aud: googleTokenURL, scope: fcmScope, iat: now + 600, exp: now + 1200), "invalid_grant"),
            ("lifetime over an hour", Claims(iss: "a@b", aud: googleTokenURL, scope: fcmScope, iat: now, exp: now + 3601), "invalid_grant"),
            ("exp before iat", Claims(iss: "a@b", aud: googleTokenURL, scope: fcmScope, iat: now, exp: now - 1), "invalid_grant"),
            // Issue 12: a lifetime too large for an Int trapped the relay while it wrote this very refusal.
            ("lifetime of 1e300 s", Claims(iss: "a@b", aud: googleTokenURL, scope: fcmScope, iat: 0, exp: 1e300), "invalid_grant"),
            ("lifetime of -1e300 s", Claims(iss: "a@b", aud: googleTokenURL, scope: fcmScope, iat: 1e300, exp: -1e300), "invalid_grant"),
            ("no iat", Claims(iss: "a@b", aud: googleTokenURL, scope: fcmScope, iat: nil, exp: now + 60), "invalid_grant"),
            ("no exp", Claims(iss: "a@b", aud: googleTokenURL, scope: fcmScope, iat: now, exp: nil), "invalid_grant"),
            ("no iss", Claims(iss: nil, aud: googleTokenURL, scope: fcmScope, iat: now, exp: now + 3600), "invalid_grant"),
            ("another server's aud", Claims(iss: "a@b", aud: "https://other.example/token", scope: fcmScope, iat: now, exp: now + 3600),
             "invalid_grant"),
            ("no aud", Claims(iss: "a@b", aud: nil, scope: fcmScope, iat: now, exp: now + 3600), "invalid_grant"),
            ("no scope", Claims(iss: "a@b", aud: googleTokenURL, scope: nil, iat: now, exp: now + 3600), "invalid_scope"),
            ("scope without FCM", Claims(iss: "a@b", aud: googleTokenURL, scope: "https://www.googleapis.com/auth/datastore", iat: now,
                                         exp: now + 3600), "invalid_scope"),
        ]
        try await withRelay(serviceAccountKeys: [account.registration()]) { relay in
            for (name, claims, error) in cases {
                let response = try await relay.tokenRequest(assertion: account.assertion(claims))
                #expect(response.status == 400, "\(name)")
                let refusal = try oauthError(response)
                #expect(refusal.error == error, "\(name): \(refusal.description)")
                #expect(!refusal.description.isEmpty)
            }
            #expect(try await relay.metric("pushrelay_access_tokens_issued_total") == 0)
        }
    }

    @Test func refusedSignatures() async throws {
        try await withRelay(serviceAccountKeys: [account.registration()]) { relay in
            let claims = account.claims()
            // Signed by a key the relay does not know.
            let stranger = try await relay.tokenRequest(assertion: TestServiceAccount.second.assertion(claims))
            #expect(try oauthError(stranger).description.contains("Invalid JWT Signature"))
            // Algorithm confusion: HS256 keyed with the registered public key, which anyone may have.
            let hmac = try await JWTKeyCollection().add(hmac: HMACKey(from: account.publicKeyPEM), digestAlgorithm: .sha256).sign(claims)
            #expect(try oauthError(try await relay.tokenRequest(assertion: hmac)).description.contains("'HS256' is not allowed"))
            let unsigned = try await JWTKeyCollection().addUnsecuredNone().sign(claims)
            #expect(try oauthError(try await relay.tokenRequest(assertion: unsigned)).description.contains("'none' is not allowed"))
            // A valid signature over other claims.
            let genuine = try await account.assertion().split(separator: ".")
            let tampered = try await account.assertion(account.claims(scope: "https://www.googleapis.com/auth/cloud-platform"))
                .split(separator: ".")
            let spliced = [genuine[0], tampered[1], genuine[2]].joined(separator: ".")
            #expect(try oauthError(try await relay.tokenRequest(assertion: spliced)).description.contains("Invalid JWT Signature"))
            for garbage in ["not-a-jwt", "a.b", "!!.??.**"] {
                #expect(try oauthError(try await relay.tokenRequest(assertion: garbage)).error == "invalid_grant", "\(garbage)")
            }
            #expect(try await relay.metric("pushrelay_access_tokens_issued_total") == 0)
        }
    }

    @Test func relayWithoutServiceAccountsSaysSo() async throws {
        try await withRelay { relay in
            let refusal = try oauthError(try await relay.tokenRequest(assertion: account.assertion()))
            #expect(refusal.error == "invalid_grant")
            #expect(refusal.description.contains("no service accounts"))
        }
    }

    @Test func malformedRequests() async throws {
        try await withRelay(serviceAccountKeys: [account.registration()]) { relay in
            let assertion = try await account.assertion()
            let cases: [(fields: [(String, String)], contentType: String, error: String)] = [
                ([("grant_type", "client_credentials"), ("assertion", assertion)], "application/x-www-form-urlencoded", "unsupported_grant_type"),
                ([("assertion", assertion)], "application/x-www-form-urlencoded", "invalid_request"),
                ([("grant_type", TokenRoutes.jwtBearerGrantType)], "application/x-www-form-urlencoded", "invalid_request"),
                ([("grant_type", TokenRoutes.jwtBearerGrantType), ("assertion", "")], "application/x-www-form-urlencoded", "invalid_request"),
                ([("grant_type", TokenRoutes.jwtBearerGrantType), ("assertion", assertion), ("assertion", assertion)],
                 "application/x-www-form-urlencoded", "invalid_request"),
                ([("grant_type", TokenRoutes.jwtBearerGrantType), ("assertion", assertion)], "application/json", "invalid_request"),
            ]
            for (fields, contentType, error) in cases {
                let response = try await relay.tokenRequest(fields, contentType: contentType)
                #expect(response.status == 400)
                #expect(try oauthError(response).error == error, "\(fields.map(\.0)) \(contentType)")
            }
            let badEscape = try await relay.http(
                "POST", "/token", rawBody: Data("grant_type=%zz&assertion=x".utf8),
                headers: [(name: "Content-Type", value: "application/x-www-form-urlencoded")])
            #expect(try oauthError(badEscape).error == "invalid_request")
        }
    }

    @Test func tokenIsBoundToItsProjects() async throws {
        try await withRelay(serviceAccountKeys: [account.registration()]) { relay in
            let device = try await relay.register()
            let token = try await relay.accessToken()
            let elsewhere = try await relay.send(to: device, project: otherProject, key: token)
            #expect(elsewhere.status == 403)
            #expect(try errorObject(elsewhere)["status"] as? String == "PERMISSION_DENIED")
            let unknown = try await relay.send(to: device, key: token + "x")
            #expect(unknown.status == 401)
            #expect(try errorObject(unknown)["status"] as? String == "UNAUTHENTICATED")
        }
    }

    @Test func oneKeyForTwoProjectsGrantsBoth() async throws {
        try await withRelay(serviceAccountKeys: [account.registration(for: testProject), account.registration(for: otherProject)]) { relay in
            let device = try await relay.register()
            let token = try await relay.accessToken()
            for project in [testProject, otherProject] {
                #expect(try await relay.send(to: device, project: project, key: token).status == 200, "\(project)")
            }
        }
    }

    @Test func expiredTokensAreRefusedAndPurged() async throws {
        try await withRelay(serviceAccountKeys: [account.registration()]) { relay in
            let device = try await relay.register()
            // A token whose hour has passed, written as the relay would have written it an hour ago.
            let store = try SQLiteRelayStore(directory: relay.stateDirectory)
            let expired = "expired-access-token-from-an-hour-ago"
            let hourAgo = nowMilliseconds() - 3_600_000
            try await store.storeAccessToken(
                digest: secretDigest(expired), grant: .init(serviceAccount: account.email, projects: [testProject], keyID: "k"),
                issuedAt: hourAgo - 1000, expiresAt: hourAgo)
            let response = try await relay.send(to: device, key: expired)
            #expect(response.status == 401)
            #expect(try errorObject(response)["status"] as? String == "UNAUTHENTICATED")

            _ = try await relay.accessToken()
            let rows = try await store.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM access_token") }
            #expect(rows == 1, "the expired token is purged when the next one is issued")
        }
    }

    @Test func tokensSurviveARestart() async throws {
        let directory = try makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keys = [try account.registration()]
        let first = try await TestRelay.start(stateDirectory: directory, serviceAccountKeys: keys)
        let device = try await first.register()
        let token = try await first.accessToken()
        try await first.stop()

        let second = try await TestRelay.start(stateDirectory: directory, serviceAccountKeys: keys)
        #expect(try await second.send(to: device, key: token).status == 200)
        try await second.stop()
    }
}
