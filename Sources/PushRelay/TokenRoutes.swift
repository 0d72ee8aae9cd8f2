import Foundation
import HTTPTypes
import Logging

/// `POST /token`: Google's OAuth2 token endpoint for the JWT-bearer grant (RFC 7523 §2.1), so that a
/// service-account file whose `token_uri` points here gets firebase-admin and the other Google clients an access
/// token for the send API.
struct TokenRoutes: Sendable {
    static let jwtBearerGrantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// Google's access-token lifetime, whatever the assertion's.
    static let accessTokenLifetimeSeconds = 3600
    /// An assertion is a few hundred bytes to a few kilobytes.
    private static let maxBody = 16 * 1024

    let store: any RelayStorage
    let metrics: RelayMetrics
    let verifier: AssertionVerifier

    func add(to router: inout RelayRouter) {
        router.add(.post, "/token", maxBody: Self.maxBody) { request in
            do {
                return try await self.token(request)
            } catch let error as OAuthError {
                request.logger.notice("token request refused", metadata: ["error": "\(error.error)", "reason": "\(error.description)"])
                return try error.response()
            } catch is StoreUnavailable {
                self.metrics.add(.unavailable)
                return try OAuthError.temporarilyUnavailable.response()
            }
        }
    }

    private struct TokenResponse: Encodable {
        var accessToken: String
        var tokenType = "Bearer"
        var expiresIn: Int

        private enum CodingKeys: String, CodingKey {
            case accessToken = "access_token", tokenType = "token_type", expiresIn = "expires_in"
        }
    }

    private func token(_ request: RelayRequest) async throws -> RelayResponse {
        if let type = request.headers[.contentType], !type.lowercased().hasPrefix("application/x-www-form-urlencoded") {
            throw OAuthError.invalidRequest("the body must be application/x-www-form-urlencoded, not \(type)")
        }
        let body: Data
        do { body = try request.bodyData() }
        catch { throw OAuthError.invalidRequest(error.message) }
        guard let form = urlEncodedForm(body) else {
            throw OAuthError.invalidRequest("the body is not a valid form, or repeats a parameter")
        }
        // RFC 6749 §3.2: a parameter sent without a value is treated as omitted.
        let grantType = form["grant_type"].flatMap { $0.isEmpty ? nil : $0 }
        let assertion = form["assertion"].flatMap { $0.isEmpty ? nil : $0 }
        guard let grantType else { throw OAuthError.invalidRequest("Missing required parameter: grant_type") }
        guard grantType == Self.jwtBearerGrantType else {
            throw OAuthError.unsupportedGrantType("Invalid grant_type: only \(Self.jwtBearerGrantType) is supported")
        }
        guard let assertion else { throw OAuthError.invalidRequest("Missing required parameter: assertion") }

        let grant = try await verifier.verify(assertion, requestAuthority: request.head.authority, now: Date())
        let accessToken = Identifiers.accessToken()
        let now = nowMilliseconds()
        try await store.storeAccessToken(
            digest: secretDigest(accessToken), grant: grant, issuedAt: now,
            expiresAt: now + Int64(Self.accessTokenLifetimeSeconds) * 1000)
        metrics.add(.accessTokensIssued)
        request.logger.info("access token issued", metadata: [
            "service_account": "\(grant.serviceAccount)", "projects": "\(grant.projects.joined(separator: ","))",
            "key_id": "\(grant.keyID)",
        ])
        var response = try jsonResponse(.ok, TokenResponse(accessToken: accessToken, expiresIn: Self.accessTokenLifetimeSeconds))
        // RFC 6749 §5.1: a response carrying a token must not be cached.
        response.headers[.cacheControl] = "no-store"
        response.headers[.init("Pragma")!] = "no-cache"
        return response
    }
}
