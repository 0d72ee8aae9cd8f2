import Foundation
import PushAgentCore

// Outgoing 2FA requests (docs/design.md §4 `/v1/requests`) and the Hyphen sign-in that makes them.

public struct RequestsResponse: Codable, Sendable {
    /// The longest `GET /v1/requests/{id}?wait=` the daemon holds, in seconds.
    public static let maximumWait = 60

    public var requests: [TwoFactorRequest]
    public init(requests: [TwoFactorRequest]) { self.requests = requests }
}

/// `POST /v1/hyphen/accounts/{id}/signin`.
public struct HyphenSignInRequest: Codable, Sendable {
    /// What the Hyphen app issued to prove who the user is (a Firebase ID token for Hyphen's own apps).
    public var credential: String
    public init(credential: String) { self.credential = credential }
}
