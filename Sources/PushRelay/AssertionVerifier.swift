import Foundation
import JWTKit

/// Checks RFC 7523 JWT-bearer assertions the way Google's token endpoint checks a service account's: RS256
/// only, signed by a registered key, `iss` the account's email, `aud` a token URL (`TokenAudience`), `scope`
/// including FCM's, `iat`/`exp` present and at most an hour apart.
struct AssertionVerifier: Sendable {
    static let algorithm = "RS256"
    /// Google's limit on an assertion's lifetime (`exp - iat`).
    static let maxLifetimeSeconds: Double = 3600
    /// How far the sender's clock may be from the relay's.
    static let clockSkewSeconds: Double = 60
    static let sendScopes = ["https://www.googleapis.com/auth/firebase.messaging", "https://www.googleapis.com/auth/cloud-platform"]

    /// A verified assertion: the service account and the projects its key is registered for.
    struct Grant: Sendable, Equatable {
        var serviceAccount: String
        var projects: [String]
        var keyID: String
    }

    private struct RegisteredKey: Sendable {
        var keyID: String
        var publicKey: Insecure.RSA.PublicKey
        var projects: [String]
    }

    private let keys: [RegisteredKey]
    private let audience: TokenAudience

    /// The same key registered for several projects is kept once, and its tokens may send to all of them.
    init(serviceAccountKeys: [ServiceAccountKey], audience: TokenAudience) {
        var keys: [RegisteredKey] = []
        for key in serviceAccountKeys {
            if let index = keys.firstIndex(where: { $0.keyID == key.keyID }) {
                if !keys[index].projects.contains(key.project) { keys[index].projects.append(key.project) }
            } else {
                keys.append(RegisteredKey(keyID: key.keyID, publicKey: key.publicKey, projects: [key.project]))
            }
        }
        self.keys = keys
        self.audience = audience
    }

    /// `requestAuthority` is the Host the token request came to: the relay's own token URL is an accepted `aud`.
    func verify(_ assertion: String, requestAuthority: String?, now: Date) async throws(OAuthError) -> Grant {
        guard !keys.isEmpty else {
            throw .invalidGrant("this relay has no service accounts: register the sender's public key with --service-account or [service_accounts]")
        }
        let header = try Self.header(of: assertion)
        guard header.alg == Self.algorithm else {
            throw .invalidGrant("Invalid JWT: algorithm '\(header.alg ?? "none")' is not allowed, only \(Self.algorithm)")
        }
        // The header's kid (the service-account file's private_key_id) names a key when it is one of our key ids;
        // any other value (such as an id Google assigned) leaves every registered key to try.
        let named = keys.filter { $0.keyID == header.kid }
        for key in named.isEmpty ? keys : named {
            let claims: AssertionClaims
            do {
                claims = try await JWTKeyCollection().add(rsa: key.publicKey, digestAlgorithm: .sha256)
                    .verify(assertion, as: AssertionClaims.self)
            } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
                continue
            } catch {
                throw .invalidGrant("Invalid JWT: the claims do not decode: \(error)")
            }
            return Grant(
                serviceAccount: try check(claims, requestAuthority: requestAuthority, now: now.timeIntervalSince1970),
                projects: key.projects, keyID: key.keyID)
        }
        throw .invalidGrant(
            "Invalid JWT Signature: no service-account key registered with this relay (--service-account, [service_accounts]) verifies it")
    }

    /// Returns the service account (`iss`).
    private func check(_ claims: AssertionClaims, requestAuthority: String?, now: Double) throws(OAuthError) -> String {
        guard let issuer = claims.iss, !issuer.isEmpty else {
            throw .invalidGrant("Invalid JWT: the iss claim (the service account's email) is missing")
        }
        let audiences = claims.aud?.value ?? []
        guard audiences.contains(where: { audience.accepts($0, requestAuthority: requestAuthority) }) else {
            let expected = audience.expected(requestAuthority: requestAuthority).joined(separator: ", ")
            throw .invalidGrant("Invalid JWT: the aud claim \(audiences) names no token URL of this relay; expected one of \(expected)")
        }
        guard let issuedAt = claims.iat, let expiry = claims.exp else {
            throw .invalidGrant("Invalid JWT: the iat and exp claims are required")
        }
        guard expiry > issuedAt, expiry - issuedAt <= Self.maxLifetimeSeconds else {
            throw .invalidGrant("Invalid JWT: Token must be a short-lived token (60 minutes): exp - iat is \((expiry - issuedAt).formatted(.number.precision(.fractionLength(0)).grouping(.never))) s")
        }
        guard issuedAt <= now + Self.clockSkewSeconds, expiry > now - Self.clockSkewSeconds else {
            throw .invalidGrant(
                "Invalid JWT: Token must be in a reasonable timeframe: it is \(expiry <= now ? "expired" : "issued in the future"); check the sender's clock")
        }
        let scopes = (claims.scope ?? "").split(separator: " ").map(String.init)
        guard !scopes.isEmpty else { throw .invalidScope("Empty or missing scope not allowed.") }
        guard scopes.contains(where: Self.sendScopes.contains) else {
            throw .invalidScope("The scope must include \(Self.sendScopes.joined(separator: " or ")) to send messages")
        }
        return issuer
    }

    /// The protected header, read before verification to pin the algorithm and pick the key. Every segment must be
    /// base64url, so that a later jwt-kit error can only mean a bad signature or bad claims.
    private static func header(of assertion: String) throws(OAuthError) -> JWTHeader {
        let segments = assertion.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, segments.allSatisfy({ base64URLDecode($0) != nil }),
              let headerJSON = base64URLDecode(segments[0]),
              let header = try? JSONDecoder().decode(JWTHeader.self, from: headerJSON)
        else { throw .invalidGrant("Invalid JWT: the assertion is not a compact JWT (three base64url segments with a JSON header)") }
        return header
    }

    private static func base64URLDecode(_ segment: Substring) -> Data? {
        var base64 = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}

/// The claims Google reads from a service account's assertion. Each is checked after decoding
/// (`AssertionVerifier.check`), so that a failure gets Google's specific OAuth error.
struct AssertionClaims: JWTPayload {
    var iss: String?
    var aud: AudienceClaim?
    var scope: String?
    var iat: Double?
    var exp: Double?

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
