import Foundation

/// Reading a PlusAuth push (FCM data `{"context": <JWT>}`, protocols.md §2.3). The context names no account: it
/// belongs to the enrolled account whose key verifies it, so every account enrolled with the token's algorithm
/// is tried.
public enum PlusAuthPush {
    /// Whether a push is PlusAuth's: it carries a context.
    public static func claims(_ data: [String: String]) -> Bool { data["context"] != nil }

    /// How far this machine's clock may disagree with the server's: `iat` may be this far in the future, and a
    /// context is accepted (and answerable) until `exp` plus this.
    public static let clockSkew: TimeInterval = 30
    /// A `code` context offering more choices than this is not a sign-in screen's.
    public static let maximumValues = ApprovalDraft.maximumChoices

    /// An enrolled account's key, as the account was enrolled.
    public struct Candidate: Sendable {
        public var accountId: String
        public var key: PlusAuthJWK
        public var algorithm: PlusAuthAlgorithm
    }

    /// Verifies the context (header `alg` pinned to the account's, signature before any claim is read), then
    /// checks its times and contents. Expired contexts are refused.
    public static func verify(_ data: [String: String], candidates: [Candidate], receivedAt: Date)
        async throws(PushRejection) -> (accountId: String, challenge: PlusAuthChallenge) {
        guard let token = data["context"], !token.isEmpty else { throw malformed("'context' (the JWT) is missing") }
        guard !candidates.isEmpty else { throw PushRejection(.unknownAccount, "no PlusAuth account is enrolled") }
        let algorithm: String?
        do { algorithm = try CompactJWS.algorithm(of: token) } catch { throw malformed("\(error)") }
        let matching = candidates.filter { $0.algorithm.rawValue == algorithm }
        guard !matching.isEmpty else {
            let enrolled = Set(candidates.map(\.algorithm.rawValue)).sorted().joined(separator: ", ")
            throw PushRejection(.algorithmNotAllowed,
                                "PlusAuth context: JWT algorithm '\(algorithm ?? "none given")' is not allowed (the enrolled accounts use \(enrolled))")
        }
        var unreadable: JWSError?
        for candidate in matching {
            let claims: PlusAuthContextClaims
            do throws(JWSError) {
                claims = try await PlusAuthJWS.verify(token, key: candidate.key, algorithm: candidate.algorithm,
                                                      as: PlusAuthContextClaims.self)
            } catch {
                // Another account's key (or an unusable stored key): the next candidate may still be the one.
                if case .badSignature = error { continue }
                unreadable = unreadable ?? error
                continue
            }
            return (candidate.accountId, try challenge(from: claims, receivedAt: receivedAt))
        }
        if let unreadable { throw malformed("\(unreadable)") }
        throw PushRejection(.badSignature, "PlusAuth context: the signature matches none of the \(matching.count) "
            + "enrolled PlusAuth account key(s) for \(algorithm ?? "")")
    }

    /// protocols.md §2.3: `context_token` and `exp` required, `type` code (with `values`) or prompt; `resolve_url`,
    /// `iat`, `settings` and `info` optional; nested objects may be missing or null.
    static func challenge(from claims: PlusAuthContextClaims, receivedAt: Date) throws(PushRejection) -> PlusAuthChallenge {
        guard let token = claims.contextToken, !token.isEmpty,
              token.count <= PlusAuthEnrollmentURI.maximumTokenLength else {
            throw malformed("claim 'context_token' is missing or longer than \(PlusAuthEnrollmentURI.maximumTokenLength) characters")
        }
        guard let exp = claims.exp else { throw malformed("claim 'exp' (expiry) is missing") }
        guard let expiresAt = WireTime.date(epochSeconds: exp) else { throw notATime("exp", exp) }
        guard receivedAt < expiresAt.addingTimeInterval(clockSkew) else {
            throw PushRejection(.expired, "PlusAuth context expired at \(expiresAt.formatted(.iso8601))")
        }
        let issuedAt = try claims.iat.map { iat throws(PushRejection) in
            guard let date = WireTime.date(epochSeconds: iat) else { throw notATime("iat", iat) }
            return date
        } ?? receivedAt
        guard issuedAt <= receivedAt.addingTimeInterval(clockSkew) else {
            let ahead = WireTime.wholeSeconds(from: receivedAt, to: issuedAt)
            throw malformed("claim 'iat' is \(ahead) s in the future; check this machine's clock")
        }
        let kind: PlusAuthChallenge.Kind
        switch claims.type {
        case "code"?: kind = .code
        case "prompt"?: kind = .prompt
        case let other: throw malformed("claim 'type' must be 'code' or 'prompt', not '\(EnrollmentURIError.excerpt(other ?? "(missing)"))'")
        }
        var values: [String]?
        if kind == .code {
            guard let offered = claims.values, (1...maximumValues).contains(offered.count),
                  offered.allSatisfy({ !$0.isEmpty && $0.count <= ApprovalDraft.maximumChoiceLength }) else {
                throw malformed("a 'code' context needs 'values': 1 to \(maximumValues) short non-empty strings")
            }
            values = offered
        }
        if let url = claims.resolveURL {
            guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
                  scheme == "http" || scheme == "https", components.host?.isEmpty == false else {
                throw malformed("claim 'resolve_url' must be an http(s) URL")
            }
        }
        return PlusAuthChallenge(contextToken: token, resolveURL: claims.resolveURL, kind: kind, values: values,
                                 issuedAt: issuedAt, expiresAt: expiresAt,
                                 bindingRequested: claims.settings?.bindSim ?? false, info: claims.info)
    }

    private static func notATime(_ claim: String, _ value: Double) -> PushRejection {
        malformed("claim '\(claim)' (\(value)) is not a time between 1970 and 9999 in seconds since the epoch")
    }

    private static func malformed(_ problem: String) -> PushRejection {
        PushRejection(.malformed, "PlusAuth context: \(problem)")
    }
}
