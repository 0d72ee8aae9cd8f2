import Foundation
import PushAgentCore
@testable import PushAgentStore
import Testing

/// What a backup reads from the store and a restore writes into another one.
struct StoreBackupTests {
    func withStore(_ body: (AgentStore) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await body(try AgentStore(directory: directory))
    }

    @Test func restoredAccountsKeepWhatTheyHadAndAwaitATokenUpdate() async throws {
        var backedUp: [BackupAccount] = []
        try await withStore { old in
            let totp = try TOTPParameters(secret: Data("12345678901234567890".utf8), digits: 8)
            try await old.addAccount(Account(id: "acc_a", provider: .forgerock, issuer: "ACME", name: "alice",
                                             createdAt: Date(timeIntervalSince1970: 1_700_000_000), hasTOTP: true),
                                     lookupKey: "mech-a", credentials: Data(#"{"k":"a"}"#.utf8), totp: totp)
            try await old.addAccount(Account(id: "acc_b", provider: .plusauth, issuer: "Tenant", name: "bob",
                                             createdAt: Date(timeIntervalSince1970: 1_700_000_100), hasTOTP: false),
                                     lookupKey: "kid-b", credentials: Data(#"{"k":"b"}"#.utf8), totp: nil)
            backedUp = try await old.accountsForBackup()
        }
        #expect(backedUp.map(\.id) == ["acc_a", "acc_b"])
        #expect(backedUp[0].totp?.digits == 8 && backedUp[0].lookupKey == "mech-a")

        try await withStore { new in
            let outcomes = try await new.restoreAccounts(backedUp)
            #expect(outcomes.allSatisfy { if case .added(let account) = $0 { account.needsTokenUpdate } else { false } })
            let restored = try await new.account(provider: .forgerock, lookupKey: "mech-a")
            #expect(restored?.credentials == Data(#"{"k":"a"}"#.utf8) && restored?.totp == backedUp[0].totp)
            #expect(try await new.accountsNeedingTokenUpdate().map(\.account.id) == ["acc_a", "acc_b"])
        }
    }

    @Test func accountsAlreadyHereAreSkippedAndLeftAsTheyAre() async throws {
        try await withStore { store in
            try await store.addAccount(Account(id: "acc_here", provider: .forgerock, issuer: "ACME", name: "alice",
                                               createdAt: Date(), hasTOTP: false),
                                       lookupKey: "mech-a", credentials: Data("{}".utf8), totp: nil)
            let sameKey = BackupAccount(id: "acc_other", provider: .forgerock, issuer: "ACME", name: "alice (old)",
                                        createdAt: Date(), lookupKey: "mech-a", credentials: Data("{}".utf8),
                                        totp: nil, boundToMachine: false)
            var sameId = sameKey
            sameId.id = "acc_here"
            sameId.lookupKey = "mech-b"
            var new = sameKey
            new.id = "acc_new"
            new.lookupKey = "mech-c"
            let outcomes = try await store.restoreAccounts([sameKey, sameId, new])
            #expect(outcomes[0] == .alreadyPresent(existingId: "acc_here"))
            #expect(outcomes[1] == .alreadyPresent(existingId: "acc_here"))
            guard case .added(let added) = outcomes[2] else { Issue.record("not added: \(outcomes[2])"); return }
            #expect(added.id == "acc_new")
            #expect(try await store.accounts().map(\.name) == ["alice", "alice (old)"])
            #expect(try await store.restoreAccounts([new]) == [.alreadyPresent(existingId: "acc_new")], "twice: nothing")
        }
    }
}
