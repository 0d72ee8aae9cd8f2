import Foundation

/// What the agent keeps per PlusAuth account (in the store, 0600): its key pair, its device id and its binding.
public struct PlusAuthCredentials: Codable, Sendable, Equatable {
    /// The algorithm the account was enrolled with; its pushes must use it.
    public var algorithm: PlusAuthAlgorithm
    /// The private JWK; `privateKey.publicKey` verifies the account's contexts.
    public var privateKey: PlusAuthJWK
    /// Sent at enrollment and with every answer.
    public var deviceIdentifier: String
    /// Where the account was enrolled; its origin is where the resolve fallback goes when a context has no
    /// `resolve_url`.
    public var enrollmentURL: String
    public var binding: PlusAuthBinding

    public init(algorithm: PlusAuthAlgorithm, privateKey: PlusAuthJWK, deviceIdentifier: String, enrollmentURL: String,
                binding: PlusAuthBinding) {
        self.algorithm = algorithm
        self.privateKey = privateKey
        self.deviceIdentifier = deviceIdentifier
        self.enrollmentURL = enrollmentURL
        self.binding = binding
    }

    /// What `PlusAuthPush.verify` tries this account with.
    public func candidate(accountId: String) -> PlusAuthPush.Candidate {
        PlusAuthPush.Candidate(accountId: accountId, key: privateKey.publicKey, algorithm: algorithm)
    }
}
