import ControlWire
import Foundation
import Logging
import PushAgentCore
import PushAgentStore

/// `pushctl backup` and `pushctl restore` (docs/backup.md). Encryption and decryption happen here, so account
/// secrets leave the daemon only inside the encrypted file; the passphrase is never logged or audited.
struct BackupService: Sendable {
    let store: AgentStore
    let modules: ProviderModules
    let events: EventBus
    let tokenUpdater: PushTokenUpdater
    let logger: Logger

    /// Each holds scrypt's memory and a core: one at a time, the others answered `busy`.
    let oneAtATime = OneAtATime()

    /// A restore body holds the file in base64 plus a little JSON.
    static let restoreRequestLimit = BackupFile.maximumByteCount * 4 / 3 + 64 * 1024

    func backup(passphrase: String, peer: Peer) async throws -> BackupResponse {
        try await oneAtATime.run("a backup for uid \(peer.uid)") { try await backupNow(passphrase: passphrase, peer: peer) }
    }

    /// All or nothing: a file that does not decrypt or does not read, or one account that could not be stored as
    /// it is, changes nothing.
    func restore(file: Data, passphrase: String, peer: Peer) async throws -> RestoreResponse {
        try await oneAtATime.run("a restore for uid \(peer.uid)") { try await restoreNow(file: file, passphrase: passphrase, peer: peer) }
    }

    private func backupNow(passphrase: String, peer: Peer) async throws -> BackupResponse {
        let accounts = try await store.accountsForBackup().map { account in
            var account = account
            account.boundToMachine = modules[account.provider]?.isBoundToMachine(credentials: account.credentials) ?? false
            return account
        }
        let document = try BackupDocument(createdAt: Date(), accounts: accounts).encoded()
        let file: Data
        do {
            file = try await onOwnThread { try BackupFile.seal(document, passphrase: passphrase) }
        } catch let error as BackupFileError {
            throw ServiceError(.invalidArgument, error.description)
        }
        try await store.audit(event: "backup", peer: peer, subject: nil, detail: "\(accounts.count) account(s)")
        logger.notice("backup of \(accounts.count) account(s) made for uid \(peer.uid)",
                      metadata: ["peer_uid": "\(peer.uid)"])
        return BackupResponse(backup: file, accounts: accounts.count)
    }

    private func restoreNow(file: Data, passphrase: String, peer: Peer) async throws -> RestoreResponse {
        let adapted: [BackupAccount]
        do {
            let document = try await onOwnThread {
                try BackupDocument.decode(try BackupFile.open(file, passphrase: passphrase))
            }
            adapted = try restorable(document.accounts, at: Date())
        } catch let error as BackupFileError {
            try await store.audit(event: "restore_refused", peer: peer, subject: nil, detail: error.description)
            logger.warning("restore refused for uid \(peer.uid): \(error)", metadata: ["peer_uid": "\(peer.uid)"])
            throw ServiceError(.invalidArgument, error.description)
        }
        let outcomes = try await store.restoreAccounts(adapted)
        let restored = zip(adapted, outcomes).map(describe)
        let added = restored.filter { $0.outcome != .skipped }
        try await store.audit(event: "restore", peer: peer, subject: nil,
                              detail: "\(added.count) added, \(restored.count - added.count) already here: "
                                  + restored.map { "\($0.id) \($0.outcome.rawValue)" }.joined(separator: ", "))
        logger.notice("restore by uid \(peer.uid): \(added.count) account(s) added, \(restored.count - added.count) already here",
                      metadata: ["peer_uid": "\(peer.uid)"])
        for case .added(let account) in outcomes {
            await events.publish(.accountChanged(account))
        }
        if !added.isEmpty { tokenUpdater.accountsFlagged() }
        return RestoreResponse(accounts: restored)
    }

    /// The accounts as they will be stored, checked before anything is written as enrollment would have: the first
    /// that cannot be is refused with everything wrong with it.
    private func restorable(_ accounts: [BackupAccount], at now: Date) throws(BackupFileError) -> [BackupAccount] {
        try accounts.map { account throws(BackupFileError) in
            guard let module = modules[account.provider] else {
                let supported = modules.all.map(\.provider.rawValue).joined(separator: ", ")
                throw .unfitAccount(account: account.id, problems: ["this pushagentd does not support \(account.provider.displayName) accounts (it supports \(supported))"])
            }
            var problems = account.problems
            var adapted = account
            do { adapted.credentials = try module.restoredCredentials(account.credentials, at: now) }
            catch { problems.append("its \(account.provider.displayName) credentials cannot be read (\(DecodingFailure.summary(error)))") }
            guard problems.isEmpty else { throw .unfitAccount(account: account.id, problems: problems) }
            return adapted
        }
    }

    private func describe(_ account: BackupAccount, _ outcome: AccountRestoreOutcome) -> RestoredAccount {
        let (kind, message): (RestoredAccount.Outcome, String) = switch outcome {
        case .alreadyPresent(let existing):
            (.skipped, "already here as \(existing); left as it is")
        case .added where modules[account.provider]?.isBoundToMachine(credentials: account.credentials) == true:
            (.needsReenrollment, "\(account.provider.displayName) binds this account to the machine it was enrolled on (bind_sim): its pushes and codes are refused here; remove it (pushctl remove \(account.id)) and enroll it again from a new QR code")
        case .added where modules[account.provider]?.updatesPushToken == true:
            (.restored, "restored; \(account.provider.displayName) is being told this machine's push token (`pushctl accounts` shows how that goes)")
        case .added:
            (.restored, "restored, but \(account.provider.displayName) has no call to change a device's push token: its pushes still go to the old machine until you remove it (pushctl remove \(account.id)) and enroll it again\(account.totp == nil ? "" : "; its TOTP codes work here")")
        }
        return RestoredAccount(account, outcome: kind, message: message)
    }
}
