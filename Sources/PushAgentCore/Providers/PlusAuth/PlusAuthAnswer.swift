import Foundation

/// Answering a PlusAuth push (protocols.md §2.4): a JWT signed with the account's key, posted to the context's
/// `resolve_url` with the context's own token as bearer (§2.6.4).
public enum PlusAuthAnswer {
    public enum Refusal: Error, Equatable, CustomStringConvertible {
        case valueRequired(choices: [String])
        case valueNotOffered(String, choices: [String])
        case valueOnPrompt
        case nowhereToResolve

        public var description: String {
            switch self {
            case .valueRequired(let choices):
                "this sign-in asks for the number shown on the sign-in screen (one of \(choices.joined(separator: ", ")))"
            case .valueNotOffered(let value, let choices):
                "\(value) is not one of the offered numbers (\(choices.joined(separator: ", ")))"
            case .valueOnPrompt:
                "this sign-in is approved or denied; it takes no number"
            case .nowhereToResolve:
                "the push names no resolve_url and the resolve fallback is disabled (plusauth_resolve_fallback_path)"
            }
        }
    }

    /// Statuses of one resolve URL that send the answer on to the next (the docs name two paths, §2.6.1).
    public static let fallbackStatuses: Set<Int> = [404, 405]

    /// `selected_value` for an approved code, `response` for a prompt, `reject_reason` on any rejection; plus
    /// `context_token` and `iat`, which the docs do not name (§2.6.6).
    public static func claims(for challenge: PlusAuthChallenge, decision: AnswerDecision, at now: Date) throws(Refusal)
        -> PlusAuthAnswerClaims {
        var claims = PlusAuthAnswerClaims(contextToken: challenge.contextToken, iat: Int64(now.timeIntervalSince1970))
        switch (decision, challenge.kind) {
        case (.approve(let value), .code):
            let choices = challenge.values ?? []
            guard let value else { throw .valueRequired(choices: choices) }
            guard choices.contains(value) else { throw .valueNotOffered(value, choices: choices) }
            claims.selectedValue = value
        case (.approve(let value), .prompt):
            guard value == nil else { throw .valueOnPrompt }
            claims.response = "accepted"
        case (.deny(let reason), let kind):
            if kind == .prompt { claims.response = "rejected" }
            claims.rejectReason = reason == .fraud ? "fraud_suspicion" : "ignore"
        }
        return claims
    }

    /// The resolve POSTs to try in order. `fallbackPath` (nil: none) is tried on the origin of the context's
    /// `resolve_url`, or of the enrollment URL when the context named none.
    public static func requests(challenge: PlusAuthChallenge, credentials: PlusAuthCredentials, decision: AnswerDecision,
                                fallbackPath: String?, at now: Date) async throws -> [OutboundRequest] {
        let urls = resolveURLs(challenge: challenge, enrollmentURL: credentials.enrollmentURL, fallbackPath: fallbackPath)
        guard !urls.isEmpty else { throw Refusal.nowhereToResolve }
        let jwt = try await PlusAuthJWS.sign(claims(for: challenge, decision: decision, at: now),
                                             key: credentials.privateKey, algorithm: credentials.algorithm)
        let body = PlusAuthResolveBody(context: jwt, deviceIdentifier: credentials.deviceIdentifier)
        return try urls.map { try PlusAuthHTTP.post(body, to: $0, bearer: challenge.contextToken) }
    }

    static func resolveURLs(challenge: PlusAuthChallenge, enrollmentURL: String, fallbackPath: String?) -> [String] {
        var urls = challenge.resolveURL.map { [$0] } ?? []
        if let fallbackPath, !fallbackPath.isEmpty,
           var origin = URLComponents(string: challenge.resolveURL ?? enrollmentURL) {
            origin.path = fallbackPath
            origin.query = nil
            origin.fragment = nil
            if let fallback = origin.string, !urls.contains(fallback) { urls.append(fallback) }
        }
        return urls
    }
}
