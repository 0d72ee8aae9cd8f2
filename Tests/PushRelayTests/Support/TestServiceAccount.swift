import Crypto
import CryptoExtras
import CurlHTTP
import Foundation
import JWTKit
import PushRelay

let googleTokenURL = "https://oauth2.googleapis.com/token"
let fcmScope = "https://www.googleapis.com/auth/firebase.messaging"

/// A service account as a sender holds it: an RSA key pair and an email. Its assertions are signed with jwt-kit,
/// as Google's client libraries sign theirs (RS256, `iss`/`aud`/`scope`/`iat`/`exp`).
struct TestServiceAccount: Sendable {
    /// Generating RSA keys takes a while in a debug build: the suites share these.
    static let main = TestServiceAccount(email: "sender@proj.iam.gserviceaccount.com")
    static let second = TestServiceAccount(email: "second@other.iam.gserviceaccount.com")

    let email: String
    let privateKey: _RSA.Signing.PrivateKey

    init(email: String) {
        self.email = email
        // Key generation fails only when the system has no randomness, and then no test can run anyway.
        privateKey = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    }

    var publicKeyPEM: String { privateKey.publicKey.pemRepresentation }

    func registration(for project: String = testProject) throws -> ServiceAccountKey {
        try ServiceAccountKey(project: project, pem: publicKeyPEM, origin: "test")
    }

    struct Claims: JWTPayload {
        var iss: String?
        var aud: String?
        var scope: String?
        var iat: Double?
        var exp: Double?
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// What google-auth sends: Google's token URL as `aud`, a one-hour lifetime.
    func claims(aud: String = googleTokenURL, scope: String = fcmScope, now: Date = Date()) -> Claims {
        let now = now.timeIntervalSince1970.rounded(.down)
        return Claims(iss: email, aud: aud, scope: scope, iat: now, exp: now + 3600)
    }

    func assertion(_ claims: Claims? = nil, kid: String? = nil) async throws -> String {
        let keys = try await JWTKeyCollection().add(rsa: JWTKit.Insecure.RSA.PrivateKey(backing: privateKey), digestAlgorithm: .sha256)
        return try await keys.sign(claims ?? self.claims(), kid: kid.map { JWKIdentifier(string: $0) })
    }
}

extension TestRelay {
    /// `POST /token` with a form body built from `fields` (in order, percent-encoded as google-auth does).
    func tokenRequest(_ fields: [(String, String)], contentType: String = "application/x-www-form-urlencoded") async throws -> HTTPResponse {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let form = fields.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: allowed) ?? $1)" }.joined(separator: "&")
        return try await http("POST", "/token", rawBody: Data(form.utf8), headers: [(name: "Content-Type", value: contentType)])
    }

    func tokenRequest(assertion: String) async throws -> HTTPResponse {
        try await tokenRequest([("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"), ("assertion", assertion)])
    }

    /// An access token for `account`, or a failure with the relay's answer.
    func accessToken(for account: TestServiceAccount = .main) async throws -> String {
        let response = try await tokenRequest(assertion: account.assertion())
        guard response.status == 200,
              let token = (try JSONSerialization.jsonObject(with: response.body) as? [String: Any])?["access_token"] as? String
        else { throw TestFailure("POST /token: \(response.status) \(response.text)") }
        return token
    }
}

/// The `error` and `error_description` of an OAuth error response.
func oauthError(_ response: HTTPResponse) throws -> (error: String, description: String) {
    guard let object = try JSONSerialization.jsonObject(with: response.body) as? [String: Any],
          let error = object["error"] as? String, let description = object["error_description"] as? String
    else { throw TestFailure("not an OAuth error body: \(response.text)") }
    return (error, description)
}
