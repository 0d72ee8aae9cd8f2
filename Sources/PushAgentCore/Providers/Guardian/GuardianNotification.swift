import Crypto
import Foundation

/// A Guardian push as the agent keeps it (protocols.md §10.3): what is shown, and what answering it
/// needs. Kept as the approval's answer context. Nothing in it is signed: Guardian pushes carry no signature.
public struct GuardianNotification: AnswerContext, Sendable, Equatable {
    /// `dai`: the enrollment (device account) the push is for.
    public var enrollmentId: String
    /// `txtkn`: the bearer of the answer; a credential.
    public var transactionToken: String
    /// `c`: signed back as the answer JWT's `sub`.
    public var challenge: String
    /// `d`: when the sign-in started.
    public var startedAt: Date
    /// The agent's bound, not the push's: Guardian pushes name no expiry (§10.6).
    public var expiresAt: Date
    /// `sh`: the host the push says it comes from; shown only, never where the answer goes.
    public var hostname: String
    /// `txlnkid`: links the push to a rich-consent record; kept, not fetched.
    public var transactionLinkingId: String?
    public var browser: Software?
    public var os: Software?
    public var location: Location?

    /// `s.b` and `s.os`: `{"n": name, "v": version}`.
    public struct Software: Codable, Sendable, Equatable {
        public var name: String?
        public var version: String?
    }

    /// `l`: `{"n": name, "lat": …, "long": …}`.
    public struct Location: Codable, Sendable, Equatable {
        public var name: String?
        public var latitude: Double?
        public var longitude: Double?
    }

    /// The replay key: the transaction token names one sign-in. Hashed, because it is the answer's bearer and the
    /// key is stored and compared in the clear.
    public var dedupeKey: String {
        "txtkn:" + SHA256.hash(data: Data(transactionToken.utf8)).hex
    }
}
