import Foundation
import GRDB
import PushAgentCore
@testable import PushAgentStore
import Testing

/// Issue 12: no push can make the store write a row it cannot read back, nor keep a poisoned message for ever.
struct StoreBoundsTests {
    let store: AgentStore
    let directory: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID())").path
        store = try AgentStore(directory: directory)
    }

    func draft(expiresAt: Date) -> ApprovalDraft {
        ApprovalDraft(provider: .forgerock, accountId: "acc_test", kind: .prompt, numbers: nil, title: "t", message: "m",
                      context: ApprovalContext(), requestedAt: Date(), expiresAt: expiresAt, dedupeKey: UUID().uuidString,
                      answerContext: Data("{}".utf8))
    }

    /// Before: a year-11476 expiry was written, and every listing failed from then on, even after a restart.
    @Test func aTimePastYear9999IsRejectedAndListingStillWorks() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outcome = try await store.commitMessage(source: .relay(id: "m1", seq: 1),
                                                    result: .success(.approval(draft(expiresAt: Date(timeIntervalSince1970: 3e11)))),
                                                    provider: .forgerock)
        guard case .rejected(let rejection) = outcome else { Issue.record("stored: \(outcome)"); return }
        #expect(rejection.reason == .malformed)
        #expect(try await store.approvals(state: nil).isEmpty)
        #expect(try await store.expireDue().isEmpty)
        #expect(try await store.isProcessed(relayMessageId: "m1"), "acknowledged, not retried")
    }

    /// Issue 24: a restored account of year 10000 was written, and every listing failed from then on.
    @Test func anAccountCreatedPastYear9999IsNeverWritten() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let late = Date(timeIntervalSince1970: 253_402_300_800)
        let restored = BackupAccount(id: "acc_late", provider: .forgerock, issuer: "ACME", name: "alice", createdAt: late,
                                     lookupKey: "mech-late", credentials: Data("{}".utf8), totp: nil,
                                     boundToMachine: false)
        await #expect(throws: StoreError.self) { try await store.restoreAccounts([restored]) }
        let enrolled = Account(id: "acc_late", provider: .forgerock, issuer: "ACME", name: "alice", createdAt: late,
                               hasTOTP: false)
        await #expect(throws: StoreError.self) {
            try await store.addAccount(enrolled, lookupKey: "mech-late", credentials: Data("{}".utf8), totp: nil)
        }
        #expect(try await store.accounts().isEmpty)
    }

    /// A database written before the bound (an unreadable expiry) is repaired when the upgraded daemon opens it.
    @Test func anUnreadableRowFromAnOlderVersionIsEndedOnOpen() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try await store.commitMessage(source: .relay(id: "m1", seq: 1),
                                          result: .success(.approval(draft(expiresAt: Date().addingTimeInterval(60)))),
                                          provider: .forgerock)
        try await store.pool.write { db in
            // What the old version stored for ForgeRock `t=300000000000`.
            try db.execute(sql: "UPDATE approval SET expires_at = ?", arguments: [Date(timeIntervalSince1970: 3e11)])
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'unreadable-times-v1'")
        }
        await #expect(throws: (any Error).self, "the row is unreadable as the old version left it") {
            try await store.approvals(state: nil)
        }
        let reopened = try AgentStore(directory: directory)
        let approvals = try await reopened.approvals(state: nil)
        #expect(approvals.map(\.state) == [.expired])
        #expect(try await reopened.expireDue().isEmpty)
    }

    @Test func attemptsAreCountedUntilTheMessageIsCommitted() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let source = MessageSource.relay(id: "m7", seq: 7)
        #expect(try store.beginAttempt(source).number == 1)
        try store.recordAttemptFailure(source, "database is locked")
        let second = try store.beginAttempt(source)
        #expect(second.number == 2 && second.lastError == "database is locked")
        _ = try await store.commitMessage(source: source, result: .failure(PushRejection(.unprocessable, "dropped")),
                                          provider: nil)
        #expect(try store.beginAttempt(.relay(id: "m7", seq: 7)).number == 1, "a commit clears the count")
        #expect(try await store.pool.write { try Int.fetchOne($0, sql: "PRAGMA synchronous") } == 2,
                "commits wait for the disk")
    }

    /// Issue 26: counting an attempt committed a transaction of its own before the message's, two commits per push.
    /// Now the database sees only the message's commit; the count lives in `ingest-attempts`.
    @Test func countingAnAttemptCommitsNothingToTheDatabase() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let observer = try DatabaseQueue(path: directory + "/agent.sqlite")
        func commitsSeen() throws -> Int { try observer.read { try Int.fetchOne($0, sql: "PRAGMA data_version")! } }
        let before = try commitsSeen()
        _ = try store.beginAttempt(.relay(id: "m1", seq: 1))
        #expect(try commitsSeen() == before)
        _ = try await store.commitMessage(source: .relay(id: "m1", seq: 1), result: .success(.approval(
            draft(expiresAt: Date().addingTimeInterval(60)))), provider: .forgerock)
        #expect(try commitsSeen() != before, "the message's commit is seen")
    }

    /// What a kill -9 leaves (the file as written) still counts at the next start. A power cut may tear the last line:
    /// the count before it stands. A file that is not the ledger at all counts as no attempts rather than stopping
    /// the daemon.
    @Test func attemptsOutliveTheProcessAndATornFileStartsOver() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let poison = MessageSource.relay(id: "m9", seq: 9)
        _ = try store.beginAttempt(poison)
        _ = try store.beginAttempt(.relay(id: "m10", seq: 10))
        _ = try store.beginAttempt(poison)
        #expect(try AgentStore(directory: directory).beginAttempt(poison).number == 3)

        let ledger = directory + "/ingest-attempts"
        #expect(try FileManager.default.attributesOfItem(atPath: ledger)[.posixPermissions] as? Int == 0o600)
        let written = try Data(contentsOf: URL(fileURLWithPath: ledger))
        try written.dropLast(10).write(to: URL(fileURLWithPath: ledger))
        #expect(try AgentStore(directory: directory).beginAttempt(poison).number == 3, "the torn third attempt is lost")
        try Data("\u{0}garbage {\"key\":".utf8).write(to: URL(fileURLWithPath: ledger))
        #expect(try AgentStore(directory: directory).beginAttempt(poison).number == 1)
    }

    /// Issue 26: the ledger was written whole at every attempt, so a batch of n pushes wrote n²/2 counts, a third of
    /// the agent's CPU under load. Each attempt now appends one line; committed, the counts leave an empty file; one
    /// message retried without end keeps the file to about a thousand lines; and a ledger written whole by the
    /// version before is read.
    @Test func anAttemptWritesOneLineAndTheLedgerStaysSmall() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let ledger = directory + "/ingest-attempts"
        func size() throws -> Int { try FileManager.default.attributesOfItem(atPath: ledger)[.size] as? Int ?? -1 }
        let batch = (1...200).map { MessageSource.relay(id: "message-\($0)", seq: Int64($0)) }
        let before = store.attempts.bytesWritten
        for source in batch { #expect(try store.beginAttempt(source).number == 1) }
        let perAttempt = (store.attempts.bytesWritten - before) / batch.count
        #expect(perAttempt < 150, "\(perAttempt) bytes an attempt: one line each, not the ledger again")
        _ = try await store.commitMessages(batch.map {
            MessageCommit(source: $0, result: .failure(PushRejection(.malformed, "m")), provider: nil)
        })
        #expect(try size() == 0, "nothing left to count")

        let retried = MessageSource.relay(id: "retried", seq: 1000)
        for _ in 0..<3000 { _ = try store.beginAttempt(retried) }
        let grown = try size()
        #expect(grown < 1100 * 150, "\(grown) bytes for one count")
        #expect(try AgentStore(directory: directory).beginAttempt(retried).number == 3001)

        try Data(#"{"retried-before":{"attempts":2,"firstAt":\#(Date().timeIntervalSinceReferenceDate)}}   "#.utf8)
            .write(to: URL(fileURLWithPath: ledger))
        #expect(try AgentStore(directory: directory).attempts.begin("retried-before", now: Date()).number == 3)
    }

    @Test func theCursorStartsOverAtZero() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await store.saveDeviceIdentity(DeviceIdentity(relayURL: "http://r", deviceId: "d", token: "t", secret: "s",
                                                          registeredAt: Date()), markAccountsForTokenUpdate: false)
        try await store.advanceCursor(to: 1_000_000_000_000_000)
        try await store.resetCursor()
        #expect(try await store.cursor() == 0)
    }
}

extension StoreBoundsTests {
    /// A replayed sign-in makes no approval but is listed (as `duplicate`), where before it left no trace.
    @Test func aReplayedPushIsInHistory() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let push = draft(expiresAt: Date().addingTimeInterval(60))
        _ = try await store.commitMessage(source: .relay(id: "m1", seq: 1), result: .success(.approval(push)), provider: .forgerock)
        let replay = try await store.commitMessage(source: .relay(id: "m2", seq: 2), result: .success(.approval(push)),
                                                   provider: .forgerock)
        guard case .duplicate(let existing?) = replay else { Issue.record("expected a duplicate, got \(replay)"); return }
        let entries = try await store.auditEntries(event: "push_rejected")
        #expect(entries.count == 1 && entries.first?.subject == "m2")
        #expect(entries.first?.detail?.contains(existing) == true)
        _ = try await store.commitMessage(source: .poll(key: "again"), result: .success(.approval(push)), provider: .forgerock)
        #expect(try await store.auditEntries(event: "push_rejected").count == 1, "a poll bringing it again is no replay")
    }
}
