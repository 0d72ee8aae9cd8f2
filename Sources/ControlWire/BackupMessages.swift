import Foundation
import PushAgentCore

/// `POST /v1/backup`: the daemon encrypts every account under the passphrase and returns the file's bytes, so the
/// accounts' secrets never leave it in clear (docs/backup.md).
public struct BackupRequest: Codable, Sendable {
    public var passphrase: String
    public init(passphrase: String) { self.passphrase = passphrase }
}

public struct BackupResponse: Codable, Sendable {
    /// The encrypted backup file (base64 in JSON), to be written as it is.
    public var backup: Data
    public var accounts: Int
    public init(backup: Data, accounts: Int) {
        self.backup = backup
        self.accounts = accounts
    }
}

/// `POST /v1/restore`: the backup file's bytes and its passphrase; all accounts are added, or none.
public struct RestoreRequest: Codable, Sendable {
    public var backup: Data
    public var passphrase: String
    public init(backup: Data, passphrase: String) {
        self.backup = backup
        self.passphrase = passphrase
    }
}

public struct RestoreResponse: Codable, Sendable, Equatable {
    public var accounts: [RestoredAccount]
    public init(accounts: [RestoredAccount]) { self.accounts = accounts }
}

/// What became of one account of the backup.
public struct RestoredAccount: Codable, Sendable, Equatable {
    public enum Outcome: String, Codable, Sendable {
        /// Added; its provider is being told this machine's push token (`pushctl accounts` shows how that went).
        case restored
        /// Added, but bound to the machine it was enrolled on (PlusAuth bind_sim): its pushes and codes are refused
        /// until it is enrolled again.
        case needsReenrollment = "needs_reenrollment"
        /// An account with the same provider key (or id) is here already; left as it is.
        case skipped
    }

    public var id: String
    public var provider: Provider
    public var issuer: String
    public var name: String
    public var outcome: Outcome
    /// What happened and what to do, for people.
    public var message: String

    public init(_ account: BackupAccount, outcome: Outcome, message: String) {
        id = account.id
        provider = account.provider
        issuer = account.issuer
        name = account.name
        self.outcome = outcome
        self.message = message
    }
}
