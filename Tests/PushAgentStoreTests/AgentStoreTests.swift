import Foundation
import GRDB
import PushAgentCore
@testable import PushAgentStore
import Testing

/// The store's transactional guarantees, on a real SQLite file.
struct AgentStoreTests {
    func makeStore() throws -> (AgentStore, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID())").path
        let store = try AgentStore(directory: directory)
        return (store, directory)
    }

    @Test func everyCommitWaitsForTheDisk() async throws {
        let (store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // 2 = FULL: an acknowledged message survives a power cut, not only a crashed process.
        let synchronous = try await store.pool.write { try Int.fetchOne($0, sql: "PRAGMA synchronous") }
        #expect(synchronous == 2)
    }

    func draft(key: String, expiresIn seconds: TimeInterval = 120) -> ApprovalDraft {
        ApprovalDraft(provider: .forgerock, accountId: "acc_test", kind: .prompt, numbers: nil, title: "t", message: "m",
                      context: ApprovalContext(user: "alice"), requestedAt: Date(),
                      expiresAt: Date().addingTimeInterval(seconds), dedupeKey: key, answerContext: Data("{}".utf8))
    }

    func register(_ store: AgentStore) async throws {
        try await store.saveDeviceIdentity(DeviceIdentity(relayURL: "http://r", deviceId: "d", token: "t", secret: "s",
                                                          registeredAt: Date()), markAccountsForTokenUpdate: false)
    }

    /// Every long-poll asks for the device identity, which the store now keeps in memory: a new registration must
    /// replace it at once, reads racing the registration included, and what it keeps is what the database holds.
    @Test func theDeviceIdentityKeptInMemoryFollowsEveryRegistration() async throws {
        let (store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try await store.deviceIdentity() == nil)
        for number in 1...20 {
            let identity = DeviceIdentity(relayURL: "http://r\(number)", deviceId: "d\(number)", token: "t\(number)",
                                          secret: "s\(number)", registeredAt: Date(timeIntervalSince1970: Double(number)))
            async let racing = store.deviceIdentity()
            try await store.saveDeviceIdentity(identity, markAccountsForTokenUpdate: false)
            _ = try await racing
            #expect(try await store.deviceIdentity() == identity, "after registration \(number)")
        }
        let reopened = try AgentStore(directory: directory)
        #expect(try await reopened.deviceIdentity() == store.deviceIdentity())
    }

    /// The reads every push makes block their thread for the read itself, never for the pool's readers: async reads
    /// keep those across suspensions, and a pool thread blocked waiting for one could be the thread that gives it back.
    @Test func aPushsReadsDoNotWaitForThePoolsReaders() async throws {
        let (store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await register(store)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<store.pool.configuration.maximumReaderCount {
                group.addTask { try await store.pool.read { _ in Thread.sleep(forTimeInterval: 3) } }
            }
            try await Task.sleep(for: .milliseconds(300))
            let asked = ContinuousClock.now
            #expect(try await store.cursor() == 0)
            #expect(try await store.isProcessed(.relay(id: "m", seq: 1)) == false)
            #expect(try await store.account(provider: .forgerock, lookupKey: "none") == nil)
            let waited = ContinuousClock.now - asked
            #expect(waited < .seconds(2), "answered after \(waited), when the pool's readers were free again")
            try await group.waitForAll()
        }
    }

    /// Every push's account lookup is answered from memory once found: whatever changes the account afterwards (the
    /// store's own writes, a raw SQL update, a removal) is seen by the next lookup, and a rolled-back change is not.
    @Test func theAccountsPushesFoundFollowEveryCommittedChange() async throws {
        let (store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func lookup() async throws -> StoredAccount? { try await store.account(provider: .forgerock, lookupKey: "mech-1") }
        let account = Account(id: "acc_1", provider: .forgerock, issuer: "i", name: "n", createdAt: Date(), hasTOTP: false)
        try await store.addAccount(account, lookupKey: "mech-1", credentials: Data("{}".utf8), totp: nil)
        #expect(try await lookup()?.credentials == Data("{}".utf8))

        try await store.updateCredentials(accountId: "acc_1", Data(#"{"k":1}"#.utf8))
        #expect(try await lookup()?.credentials == Data(#"{"k":1}"#.utf8))
        try await store.pool.write { try $0.execute(sql: "UPDATE account SET name = 'renamed'") }
        #expect(try await lookup()?.account.name == "renamed")
        struct Abandoned: Error {}
        await #expect(throws: Abandoned.self) {
            try await store.pool.write { db in
                try db.execute(sql: "UPDATE account SET name = 'rolled back'")
                throw Abandoned()
            }
        }
        #expect(try await lookup()?.account.name == "renamed")
        _ = try await store.removeAccount(matching: "acc_1")
        #expect(try await lookup() == nil)
    }

    /// What the lookup keeps, seen from behind the store's back: a write through a connection of its own is not
    /// reported to the store, so a lookup that still answers the old row answers from memory. A miss is not kept, a
    /// lookup whose read raced a commit keeps nothing, and lookup keys are told apart by their bytes, as SQLite does.
    @Test func theAccountsKeptAreFoundOnesReadBeforeNoCommit() async throws {
        let (store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let behindTheStore = try DatabaseQueue(path: directory + "/agent.sqlite")
        func lookup(_ key: String) async throws -> StoredAccount? {
            try await store.account(provider: .forgerock, lookupKey: key)
        }
        let account = Account(id: "acc_1", provider: .forgerock, issuer: "i", name: "n", createdAt: Date(), hasTOTP: false)
        try await store.addAccount(account, lookupKey: "mech-1", credentials: Data("{}".utf8), totp: nil)
        #expect(try await lookup("e\u{301}") == nil)
        try await behindTheStore.write { try $0.execute(sql: "UPDATE account SET lookup_key = 'e\u{301}' WHERE id = 'acc_1'") }
        #expect(try await lookup("e\u{301}")?.account.id == "acc_1", "the miss before was not kept")
        #expect(try await lookup("\u{E9}") == nil, "é precomposed is another key to SQLite")

        try await behindTheStore.write { try $0.execute(sql: "UPDATE account SET name = 'unseen'") }
        #expect(try await lookup("e\u{301}")?.account.name == "n", "the found account is answered from memory")

        // A commit lands while a lookup reads: what that read found is not kept.
        let key = OpenedAccounts.Key(provider: .forgerock, lookupKey: "raced")
        let stale = try #require(try await lookup("e\u{301}"))
        let answered = try store.openedAccounts.account(key) {
            try store.pool.write { try $0.execute(sql: "UPDATE account SET name = 'after the read'") }
            return stale
        }
        #expect(answered?.account.name == "n")
        #expect(store.openedAccounts.account(key) { nil } == nil, "the read that raced a commit was not kept")
    }

    @Test func aTokenUpdateForATokenReplacedMeanwhileLeavesTheAccountFlagged() async throws {
        let (store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await register(store)
        let account = Account(id: "acc_1", provider: .forgerock, issuer: "i", name: "n", createdAt: Date(), hasTOTP: false)
        try await store.addAccount(account, lookupKey: "mech-1", credentials: Data("{}".utf8), totp: nil)
        func registerAgain(token: String) async throws {
            try await store.saveDeviceIdentity(DeviceIdentity(relayURL: "http://r", deviceId: "d", token: token, secret: "s",
                                                              registeredAt: Date()), markAccountsForTokenUpdate: true)
        }
        try await registerAgain(token: "t2")
        try await store.recordTokenUpdateProblem(accountId: "acc_1", "AM is down (retrying)")
        #expect(try await store.accountsNeedingTokenUpdate().map(\.account.tokenUpdateProblem) == ["AM is down (retrying)"])

        try await registerAgain(token: "t3")
        #expect(try await store.accounts().first?.tokenUpdateProblem == nil, "a new registration starts a new attempt")
        let stale = try await store.finishTokenUpdate(accountId: "acc_1", credentials: Data("{}".utf8), sentToken: "t2")
        #expect(!stale)
        #expect(try await store.accounts().first?.needsTokenUpdate == true)
        #expect(try await store.finishTokenUpdate(accountId: "acc_1", credentials: Data(#"{"k":1}"#.utf8), sentToken: "t3"))
        #expect(try await store.accountsNeedingTokenUpdate().isEmpty)
        #expect(try await store.account(provider: .forgerock, lookupKey: "mech-1")?.credentials == Data(#"{"k":1}"#.utf8))
        try await store.recordTokenUpdateProblem(accountId: "acc_1", "late")
        #expect(try await store.accounts().first?.tokenUpdateProblem == nil, "a finished update takes no late problem")
    }

    @Test func onlyAPendingUnexpiredStepUpCanBeWithdrawn() async throws {
        let (store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func stepUp(expiresIn seconds: TimeInterval) async throws -> Approval {
            var draft = draft(key: UUID().uuidString, expiresIn: seconds)
            draft.provider = .local
            draft.kind = .stepup
            return try await store.addLocalApproval(draft) { _ in }
        }
        let live = try await stepUp(expiresIn: 60)
        #expect(try await store.withdrawLocalApproval(live.id, reason: "gone").state == .failed)
        await #expect(throws: StoreError.conflict("step-up \(live.id) is already failed; it can no longer be withdrawn")) {
            try await store.withdrawLocalApproval(live.id, reason: "gone")
        }
        let lapsed = try await stepUp(expiresIn: -1)
        await #expect(throws: StoreError.self) { try await store.withdrawLocalApproval(lapsed.id, reason: "gone") }
        #expect(try await store.approval(matching: lapsed.id).approval.state == .pending, "left for the sweeper to expire")
    }

    /// Without touching the process's umask (other work of the same process would make files meanwhile).
    @Test func filesArePrivate() async throws {
        let (store, directory) = try makeStore()
        try await register(store)
        let attributes = try FileManager.default.attributesOfItem(atPath: directory)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
        for name in ["agent.sqlite", "agent.sqlite-wal", "agent.sqlite-shm"] {
            let file = try FileManager.default.attributesOfItem(atPath: directory + "/" + name)
            #expect((file[.posixPermissions] as? Int) == 0o600, "\(name)")
        }
    }

    @Test func messageEffectAndCursorCommitTogether() async throws {
        let (store, _) = try makeStore()
        try await register(store)
        let outcome = try await store.commitMessage(relayMessageId: "m1", seq: 7, result: .success(.approval(draft(key: "k1"))), provider: .forgerock)
        guard case .created(let approval) = outcome else { Issue.record("expected an approval, got \(outcome)"); return }
        #expect(try await store.cursor() == 7)
        #expect(try await store.isProcessed(relayMessageId: "m1"))
        #expect(try await store.approval(matching: approval.id).approval.state == .pending)
    }

    /// A commit hands back the approval it made from the draft, not one decoded from the row it wrote: it must be
    /// the one a read of the row gives, every field of the context and the choices included.
    @Test func theApprovalACommitReturnsIsTheOneStored() async throws {
        let (store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let requested = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let context = ApprovalContext(app: "Portal", user: "alice", ip: "192.0.2.7", location: "Zürich", userAgent: "UA/1.0",
                                      raw: .object(["n": .number(0.1), "list": .array([.bool(true), .null, .string("é\n\"")])]))
        let draft = ApprovalDraft(provider: .forgerock, accountId: "acc_test", kind: .number, numbers: ["12", "07", "99"],
                                  title: "Sign in?", message: "from \"home\"", context: context, requestedAt: requested,
                                  expiresAt: requested.addingTimeInterval(120), dedupeKey: "k1", answerContext: Data("{}".utf8))
        let outcome = try await store.commitMessage(source: .relay(id: "m1", seq: 1), result: .success(.approval(draft)),
                                                    provider: .forgerock)
        guard case .created(let approval) = outcome else { Issue.record("expected an approval, got \(outcome)"); return }
        #expect(try await store.approval(matching: approval.id).approval == approval)
        #expect(approval.context == context && approval.numbers == draft.numbers)

        // A JSON null as the whole raw context (ForgeRock's contextInfo "null") reads back as none: so is it returned.
        var bare = draft
        bare.dedupeKey = "k2"
        bare.context = ApprovalContext(user: "alice", raw: .null)
        guard case .created(let nullRaw) = try await store.commitMessage(
            source: .relay(id: "m2", seq: 2), result: .success(.approval(bare)), provider: .forgerock) else {
            Issue.record("expected an approval"); return
        }
        #expect(nullRaw.context.raw == nil)
        #expect(try await store.approval(matching: nullRaw.id).approval == nullRaw)
    }

    @Test func redeliveryAndReplayAreAbsorbed() async throws {
        let (store, _) = try makeStore()
        try await register(store)
        _ = try await store.commitMessage(relayMessageId: "m1", seq: 1, result: .success(.approval(draft(key: "k1"))), provider: .forgerock)
        let again = try await store.commitMessage(relayMessageId: "m1", seq: 1, result: .success(.approval(draft(key: "k1"))), provider: .forgerock)
        let replay = try await store.commitMessage(relayMessageId: "m2", seq: 2, result: .success(.approval(draft(key: "k1"))), provider: .forgerock)
        if case .duplicate = again {} else { Issue.record("redelivery must be a duplicate") }
        if case .duplicate(let id) = replay { #expect(id != nil) } else { Issue.record("a replayed messageId must be a duplicate") }
        #expect(try await store.approvals(state: nil).count == 1)
        #expect(try await store.cursor() == 2)
    }

    @Test func stateMachineRefusesSecondAnswers() async throws {
        let (store, _) = try makeStore()
        try await register(store)
        guard case .created(let approval) = try await store.commitMessage(
            relayMessageId: "m1", seq: 1, result: .success(.approval(draft(key: "k1"))), provider: .forgerock) else { return }
        try await store.transition(approval.id, to: .approving, resolution: Resolution(byUid: 1000))
        await #expect(throws: StoreError.self) { try await store.transition(approval.id, to: .denying) }
        let approved = try await store.transition(approval.id, to: .approved)
        #expect(approved.resolvedAt != nil)
        #expect(approved.resolution?.byUid == 1000)
    }

    @Test func expiryAndPrefixLookup() async throws {
        let (store, _) = try makeStore()
        try await register(store)
        guard case .created(let approval) = try await store.commitMessage(
            relayMessageId: "m1", seq: 1, result: .success(.approval(draft(key: "k1", expiresIn: -1))), provider: .forgerock) else { return }
        #expect(try await store.approval(matching: String(approval.id.prefix(8))).approval.id == approval.id)
        let expired = try await store.expireDue()
        #expect(expired.map(\.id) == [approval.id])
        #expect(try await store.approval(matching: approval.id).approval.state == .expired)
        await #expect(throws: StoreError.notFound("no approval matches 'apr_zzzz'")) { try await store.approval(matching: "apr_zzzz") }
    }

    @Test func rejectionsAreAudited() async throws {
        let (store, _) = try makeStore()
        try await register(store)
        _ = try await store.commitMessage(relayMessageId: "bad", seq: 3, result: .failure(PushRejection(.badSignature, "nope")), provider: .forgerock)
        let entries = try await store.auditEntries(event: "push_rejected")
        #expect(entries.count == 1)
        #expect(entries.first?.detail?.contains("bad_signature") == true)
        #expect(try await store.cursor() == 3, "a rejected push is acknowledged too")
    }
}
