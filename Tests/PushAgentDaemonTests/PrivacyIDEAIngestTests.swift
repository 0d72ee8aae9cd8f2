import Foundation
import Logging
@testable import PushAgentDaemon
@testable import PushAgentCore
import PushAgentStore
import Testing

/// Both privacyIDEA transports through the real ingest path and a real SQLite store: a relay push advances the relay
/// cursor, a polled challenge does not, and one nonce makes one approval whichever way it comes.
struct PrivacyIDEAIngestTests {
    // RSA-4096 takes seconds in a debug build, on a thread the whole parallel run shares: one of each per suite.
    static let serverKey = try! PrivacyIDEADeviceKey.generate()
    static let deviceKey = try! PrivacyIDEADeviceKey.generate()
    static let serial = "PIPU00000042"

    func challenge(nonce: String) throws -> [String: String] {
        var data = ["nonce": nonce, "serial": Self.serial, "url": "https://pi.example/ttype/push",
                    "question": "Sign in?", "title": "privacyIDEA", "sslverify": "1"]
        data["signature"] = try Self.serverKey.sign(PrivacyIDEASignText.challenge(
            nonce: nonce, url: data["url"]!, serial: Self.serial, question: "Sign in?", title: "privacyIDEA",
            sslVerify: "1", presenceOptions: nil))
        return data
    }

    func makeIngest() async throws -> (PushIngest, AgentStore) {
        let store = try AgentStore(directory: FileManager.default.temporaryDirectory.appendingPathComponent("pi-\(UUID())").path)
        try await store.saveDeviceIdentity(DeviceIdentity(relayURL: "http://r", deviceId: "d", token: "t", secret: "s",
                                                          registeredAt: Date()), markAccountsForTokenUpdate: false)
        let credentials = PrivacyIDEACredentials(
            serial: Self.serial, url: "https://pi.example/ttype/push", sslVerify: true, pollOnly: false,
            devicePrivateKey: Self.deviceKey.derRepresentation,
            serverPublicKey: try PrivacyIDEAServerKey(der: Data(base64Encoded: Self.serverKey.publicKeyBase64)!).der,
            pushToken: "t")
        try await store.addAccount(Account(id: "acc_pi", provider: .privacyidea, issuer: "privacyIDEA", name: "alice",
                                           createdAt: Date(), hasTOTP: false),
                                   lookupKey: Self.serial, credentials: try JSONEncoder().encode(credentials), totp: nil)
        let logger = Logger(label: "test")
        let events = EventBus()
        let module = PrivacyIDEAModule(context: ProviderContext(
            store: store, http: ProviderHTTP(http: .shared), events: events,
            config: LiveConfig(.defaults(systemMode: false, environment: [:])), logger: logger))
        return (PushIngest(store: store, modules: ProviderModules([module]), events: events,
                           webPush: WebPushInbox(store: store, logger: logger), logger: logger), store)
    }

    /// As the poll source hands a challenge over: keyed by its nonce.
    static func polled(_ data: [String: String]) -> DeliveredPush {
        DeliveredPush(data: data, source: .poll(key: "privacyidea:" + data["nonce"]!))
    }

    @Test func relayAndPollFeedOnePath() async throws {
        let (ingest, store) = try await makeIngest()
        let pushed = try challenge(nonce: "NONCEPUSHED00000")
        try await ingest.ingest([DeliveredPush(data: pushed, source: .relay(id: "msg-5", seq: 5))])
        #expect(try await store.cursor() == 5)
        #expect(try await store.approvals(state: .pending).map(\.provider) == [.privacyidea])

        // The same challenge polled again: no second approval, cursor untouched.
        let again = try await ingest.ingest([Self.polled(pushed)])
        guard case .duplicate? = again.first else { Issue.record("expected a duplicate, got \(again)"); return }
        let polled = try await ingest.ingest([Self.polled(try challenge(nonce: "NONCEPOLLED00000"))])
        guard case .created(let approval)? = polled.first else { Issue.record("expected an approval, got \(polled)"); return }
        #expect(approval.accountId == "acc_pi" && approval.kind == .prompt)
        #expect(try await store.cursor() == 5, "a poll never moves the relay cursor")
        #expect(try await store.isProcessed(.poll(key: "privacyidea:NONCEPOLLED00000")))
        #expect(try await store.approvals(state: nil).count == 2)
    }

    @Test func tamperedPolledChallengeIsRejectedOnce() async throws {
        let (ingest, store) = try await makeIngest()
        var forged = try challenge(nonce: "NONCEFORGED00000")
        forged["question"] = "Transfer money?"
        let first = try await ingest.ingest([Self.polled(forged)])
        guard case .rejected(let rejection)? = first.first else { Issue.record("expected a rejection, got \(first)"); return }
        #expect(rejection.reason == .badSignature)
        #expect(try await ingest.ingest([Self.polled(forged)]).isEmpty, "a message already processed is skipped")
        #expect(try await store.auditEntries(event: "push_rejected").count == 1, "polling it again logs nothing new")
        #expect(try await store.approvals(state: nil).isEmpty)
    }
}
