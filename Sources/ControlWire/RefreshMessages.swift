import Foundation

/// `POST /v1/refresh`: poll the providers that can be polled (privacyIDEA) now instead of at the next interval.
public struct RefreshResponse: Codable, Sendable, Equatable {
    public struct Failure: Codable, Sendable, Equatable {
        public var accountId: String
        /// What went wrong, for people.
        public var error: String
        public init(accountId: String, error: any Error) {
            self.accountId = accountId
            self.error = String(describing: error)
        }
        enum CodingKeys: String, CodingKey { case accountId = "account_id", error }
    }

    /// How many accounts were polled.
    public var polled = 0
    /// The approvals the poll created (challenges already known are not repeated).
    public var newApprovals: [String] = []
    public var failures: [Failure] = []

    /// Nothing polled yet: the daemon counts in what each source polls.
    public init() {}

    /// `other`'s polls added to these: the reply of several sources.
    public mutating func add(_ other: RefreshResponse) {
        polled += other.polled
        newApprovals += other.newApprovals
        failures += other.failures
    }

    enum CodingKeys: String, CodingKey { case polled, newApprovals = "new_approvals", failures }
}
