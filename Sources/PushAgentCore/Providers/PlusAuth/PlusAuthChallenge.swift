import Crypto
import Foundation

/// A verified PlusAuth push: what is shown, and what answering it needs. Kept as the approval's answer context.
public struct PlusAuthChallenge: AnswerContext, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        /// Pick the value shown on the sign-in screen.
        case code
        /// Approve or deny.
        case prompt
    }

    /// The bearer of the resolve request; also what makes a push unique.
    public var contextToken: String
    /// Where the answer goes; nil when the context named none (then the fallback path is used).
    public var resolveURL: String?
    public var kind: Kind
    public var values: [String]?
    public var issuedAt: Date
    /// The context's `exp`.
    public var expiresAt: Date
    /// `settings.bind_sim`.
    public var bindingRequested: Bool
    public var info: JSONValue?

    /// The replay key: the context's token names the sign-in (it is the resolve bearer, so one per challenge), so a
    /// re-sent or re-signed context of the same sign-in is one approval. Hashed, because the token is a credential
    /// and the key is stored and compared in the clear.
    public var dedupeKey: String {
        SHA256.hash(data: Data(contextToken.utf8)).hex
    }
}
