import Foundation
import PushAgentCore

// Outgoing 2FA requests (docs/design.md §4 `/v1/requests`), which a provider's sign-in makes.

public struct RequestsResponse: Codable, Sendable {
    /// The longest `GET /v1/requests/{id}?wait=` the daemon holds, in seconds.
    public static let maximumWait = 60

    public var requests: [TwoFactorRequest]
    public init(requests: [TwoFactorRequest]) { self.requests = requests }
}
