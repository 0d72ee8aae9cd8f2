import Foundation

/// `POST /v1/hyphen/accounts/{id}/signin`.
public struct HyphenSignInRequest: Codable, Sendable {
    /// What the Hyphen app issued to prove who the user is (a Firebase ID token for Hyphen's own apps).
    public var credential: String
    public init(credential: String) { self.credential = credential }
}
