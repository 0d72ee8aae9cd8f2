import GRDB
import PushAgentCore
import Synchronization

/// The accounts pushes found, opened, by provider and lookup key: every push looks its account up, and reading the
/// row, decoding it and opening its sealed secret (AES-GCM) took a twenty-fifth of the agent's CPU a push. Any commit
/// that touched the `account` table forgets them all, as the pool's writer reports it (a write to the file from
/// outside the daemon, an operator's `sqlite3`, is not seen until it restarts); a lookup that began before such a
/// commit does not put back what it read. Only accounts found are kept: a push names its lookup key unverified, so
/// keeping misses would let anyone grow this without bound.
final class OpenedAccounts: TransactionObserver, Sendable {
    struct Key: Hashable {
        var provider: Provider
        /// Its bytes, as SQLite compares them: Swift's `String` equality would take "é" and "e\u{301}" for one key,
        /// and a push names its lookup key unverified.
        var lookupKey: [UInt8]

        init(provider: Provider, lookupKey: String) {
            self.provider = provider
            self.lookupKey = Array(lookupKey.utf8)
        }
    }

    private struct State {
        var accounts: [Key: StoredAccount] = [:]
        /// Commits that changed accounts so far: a lookup keeps what it read only if none came meanwhile.
        var commits = 0
        /// The transaction under way changed an account.
        var changing = false
    }

    private let state = Mutex(State())

    /// The account kept for `key`, or what `read` finds (kept when found and no account changed meanwhile).
    func account(_ key: Key, read: () throws -> StoredAccount?) rethrows -> StoredAccount? {
        let (kept, commits) = state.withLock { ($0.accounts[key], $0.commits) }
        if let kept { return kept }
        let found = try read()
        if let found { state.withLock { if $0.commits == commits { $0.accounts[key] = found } } }
        return found
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { eventKind.tableName == "account" }

    func databaseDidChange(with event: DatabaseEvent) { state.withLock { $0.changing = true } }

    func databaseDidCommit(_ db: Database) {
        state.withLock { state in
            guard state.changing else { return }
            state = State(commits: state.commits + 1)
        }
    }

    func databaseDidRollback(_ db: Database) { state.withLock { $0.changing = false } }
}
