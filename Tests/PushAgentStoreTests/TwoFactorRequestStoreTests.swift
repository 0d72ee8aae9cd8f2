import Foundation
import PushAgentCore
import PushAgentStore
import Testing

/// Requests this device made, moved by status pushes in the same transaction as the message's processed id.
struct TwoFactorRequestStoreTests {
    func makeStore() async throws -> AgentStore {
        let store = try AgentStore(directory: FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID())").path)
        try await store.saveDeviceIdentity(DeviceIdentity(relayURL: "http://r", deviceId: "d", token: "t", secret: "s",
                                                          registeredAt: Date()), markAccountsForTokenUpdate: false)
        return store
    }

    func request(_ remoteId: String = "2fa-1") -> TwoFactorRequest {
        TwoFactorRequest(id: Identifier.make(prefix: "req"), provider: .hyphen, accountId: "acc_1", remoteId: remoteId,
                         title: "Sign-in", message: "m", state: .pending, createdAt: Date(),
                         expiresAt: Date().addingTimeInterval(180))
    }

    func update(_ state: TwoFactorRequestState, remoteId: String = "2fa-1", account: String = "acc_1") -> PushEffect {
        .requestUpdate(TwoFactorRequestUpdate(provider: .hyphen, accountId: account, remoteId: remoteId, state: state,
                                              txId: state == .approved ? "ab12" : nil))
    }

    @Test func statusPushMovesTheRequestWithTheCursor() async throws {
        let store = try await makeStore()
        let made = request()
        try await store.insertRequest(made, context: Data("{\"k\":1}".utf8))
        let outcome = try await store.commitMessage(relayMessageId: "m1", seq: 4, result: .success(update(.approved)),
                                                    provider: .hyphen)
        guard case .requestUpdated(let moved) = outcome else { Issue.record("expected an update, got \(outcome)"); return }
        #expect(moved.id == made.id && moved.state == .approved && moved.txId == "ab12")
        #expect(try await store.cursor() == 4)
        let stored = try await store.request(matching: String(made.id.prefix(8)))
        #expect(stored.request.state == .approved && stored.context == Data("{\"k\":1}".utf8))
        #expect(try await store.unfinishedRequests().map(\.request.id) == [made.id], "approved still needs finishing")

        // The same news again (a second push, or polling got there first) changes nothing.
        let again = try await store.commitMessage(relayMessageId: "m2", seq: 5, result: .success(update(.approved)),
                                                  provider: .hyphen)
        if case .duplicate = again {} else { Issue.record("expected a duplicate, got \(again)") }
        try await store.transitionRequest(made.id, to: .completed)
        #expect(try await store.unfinishedRequests().isEmpty)
        await #expect(throws: StoreError.self) { try await store.transitionRequest(made.id, to: .denied) }
    }

    @Test func unknownRequestIsRefusedAndKeptInHistory() async throws {
        let store = try await makeStore()
        try await store.insertRequest(request(), context: Data())
        for (id, effect) in [("m1", update(.denied, remoteId: "2fa-other")), ("m2", update(.denied, account: "acc_2"))] {
            let outcome = try await store.commitMessage(relayMessageId: id, seq: 1, result: .success(effect), provider: .hyphen)
            guard case .rejected(let rejection) = outcome else { Issue.record("expected a rejection, got \(outcome)"); continue }
            #expect(rejection.reason == .unknownRequest)
        }
        let audit = try await store.auditEntries(event: "push_rejected")
        #expect(audit.count == 2)
        #expect(audit.contains { $0.detail?.contains("2fa-other") == true && $0.detail?.contains("did not make") == true })
        #expect(try await store.requests().first?.state == .pending, "the request itself is untouched")
    }

    @Test func providerStateIsReplaced() async throws {
        let store = try await makeStore()
        let account = Account(id: "acc_h", provider: .hyphen, issuer: "App", name: "a@b", createdAt: Date(), hasTOTP: false)
        try await store.addAccount(account, lookupKey: "pk", credentials: Data("old".utf8), totp: nil)
        try await store.updateCredentials(accountId: "acc_h", Data("new".utf8))
        #expect(try await store.account(matching: "acc_h").credentials == Data("new".utf8))
        await #expect(throws: StoreError.notFound("no account acc_missing")) {
            try await store.updateCredentials(accountId: "acc_missing", Data())
        }
    }
}
