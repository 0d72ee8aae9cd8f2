import Foundation

/// `POST /v1/refresh`: poll the providers that can be polled (privacyIDEA) now instead of at the next interval.
public struct RefreshResponse: Codable, Sendable, Equatable {
    public struct Failure: Codable, Sendable, Equatable {
        public var accountId: String
        public var error: String
        public init(accountId: String, error: String) {
            self.accountId = accountId
            self.error = error
        }
        enum CodingKeys: String, CodingKey { case accountId = "account_id", error }
    }

    /// How many accounts were polled.
    public var polled: Int
    /// The approvals the poll created (challenges already known are not repeated).
    public var newApprovals: [String]
    public var failures: [Failure]

    public init(polled: Int, newApprovals: [String], failures: [Failure]) {
        self.polled = polled
        self.newApprovals = newApprovals
        self.failures = failures
    }

    enum CodingKeys: String, CodingKey { case polled, newApprovals = "new_approvals", failures }
}
