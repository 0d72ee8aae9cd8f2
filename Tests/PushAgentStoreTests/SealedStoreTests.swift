import Crypto
import Foundation
import GRDB
import PushAgentCore
@testable import PushAgentStore
import Testing

/// Issue 17: the store's secrets are sealed at rest, a store from before sealing is sealed at open, and a store
/// meets only the key it was sealed with.
struct SealedStoreTests {
    static let credentials = Data(#"{"hmac_key":"c2VjcmV0LWhtYWMta2V5LTk4NzY1"}"#.utf8)
    static let totpSecret = Data("totp-seed-5551234567".utf8)
    static let relaySecret = "relay-read-secret-0123456789"
    /// Every form in which the secrets would appear in the files if they were stored in clear.
    static let clearForms = ["c2VjcmV0LWhtYWMta2V5LTk4NzY1", "totp-seed-5551234567", totpSecret.base64EncodedString(), relaySecret]

    func directory() -> String { FileManager.default.temporaryDirectory.appendingPathComponent("sealed-\(UUID())").path }

    func storeFiles(_ directory: String) -> [Data] {
        ["", "-wal", "-shm"].compactMap { FileManager.default.contents(atPath: directory + "/agent.sqlite" + $0) }
    }

    func clearSecretsIn(_ directory: String) -> [String] {
        let files = storeFiles(directory)
        return Self.clearForms.filter { form in files.contains { $0.range(of: Data(form.utf8)) != nil } }
    }

    func fill(_ store: AgentStore) async throws {
        try await store.saveDeviceIdentity(
            DeviceIdentity(relayURL: "http://relay", deviceId: "dev1", token: "tok1", secret: Self.relaySecret,
                           registeredAt: Date()), markAccountsForTokenUpdate: false)
        try await store.addAccount(
            Account(id: "acc_1", provider: .forgerock, issuer: "ACME", name: "alice", createdAt: Date(), hasTOTP: true),
            lookupKey: "mech-1", credentials: Self.credentials, totp: try TOTPParameters(secret: Self.totpSecret))
        _ = try await store.deviceSigningKey()
    }

    func expectReadableClear(_ store: AgentStore) async throws {
        #expect(try await store.deviceIdentity()?.secret == Self.relaySecret)
        let account = try #require(try await store.account(provider: .forgerock, lookupKey: "mech-1"))
        #expect(account.credentials == Self.credentials)
        #expect(account.totp?.secret == Self.totpSecret)
    }

    @Test func theFilesHoldNoSecretInClearAndTheStoreReadsThemBack() async throws {
        let directory = directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try AgentStore(directory: directory)
        try await fill(store)
        let key = try await store.deviceSigningKey()
        try await store.updateCredentials(accountId: "acc_1", Self.credentials)
        #expect(clearSecretsIn(directory).isEmpty)
        try await expectReadableClear(store)
        #expect(store.secretsSealedBy == .keyFile)

        let reopened = try AgentStore(directory: directory)
        try await expectReadableClear(reopened)
        #expect(try await reopened.deviceSigningKey().publicJWK == key.publicJWK, "the same device key after a restart")
    }

    @Test func aStoreFromBeforeSealingIsSealedWhenOpened() async throws {
        let directory = directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        do {
            // The store as the previous release left it: every migration but sealing, secrets in clear.
            let queue = try DatabaseQueue(path: directory + "/agent.sqlite")
            try Schema.migrator.migrate(queue, upTo: "fatigue-v1")
            try await queue.write { db in
                try db.execute(sql: """
                    INSERT INTO device (singleton, relay_url, device_id, token, secret, registered_at, cursor)
                    VALUES (1, 'http://relay', 'dev1', 'tok1', ?, '2026-01-01 00:00:00.000', 0)
                    """, arguments: [Self.relaySecret])
                try db.execute(sql: """
                    INSERT INTO account (id, provider, issuer, name, created_at, lookup_key, credentials, totp)
                    VALUES ('acc_1', 'forgerock', 'ACME', 'alice', '2026-01-01 00:00:00.000', 'mech-1', ?, ?)
                    """, arguments: [Self.credentials, try JSONEncoder().encode(try TOTPParameters(secret: Self.totpSecret))])
            }
        }
        #expect(!clearSecretsIn(directory).isEmpty, "the old store holds them in clear")

        let store = try AgentStore(directory: directory)
        try await expectReadableClear(store)
        #expect(clearSecretsIn(directory).isEmpty, "nothing left in clear: \(clearSecretsIn(directory))")
    }

    @Test func aStoreCopiedWithoutItsKeyIsRefusedAndLeftAlone() async throws {
        let original = directory(), copy = directory()
        defer { for path in [original, copy] { try? FileManager.default.removeItem(atPath: path) } }
        try await fill(try AgentStore(directory: original))
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: original + "/agent.sqlite" + suffix) {
            try FileManager.default.copyItem(atPath: original + "/agent.sqlite" + suffix, toPath: copy + "/agent.sqlite" + suffix)
        }
        let database = FileManager.default.contents(atPath: copy + "/agent.sqlite")
        #expect {
            _ = try AgentStore(directory: copy)
        } throws: { error in
            "\(error)".contains("no \(SealingKey.keyFileName)") && "\(error)".contains("pushctl restore")
        }
        // Issue 24: a new key file was written first, beside the store it could never open.
        #expect(!FileManager.default.fileExists(atPath: copy + "/" + SealingKey.keyFileName), "no key written")
        #expect(FileManager.default.contents(atPath: copy + "/agent.sqlite") == database, "the store left as it was")
        // Nothing was lost: with the original key put back, the copy opens.
        try FileManager.default.copyItem(atPath: original + "/" + SealingKey.keyFileName, toPath: copy + "/" + SealingKey.keyFileName)
        try await expectReadableClear(try AgentStore(directory: copy))
    }

    @Test func aKeyFileOthersMayReadIsRefusedWithTheFix() async throws {
        let directory = directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try AgentStore(directory: directory)
        let keyFile = directory + "/" + SealingKey.keyFileName
        #expect(try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? Int == 0o600)
        chmod(keyFile, 0o644)
        #expect {
            _ = try AgentStore(directory: directory)
        } throws: { error in
            "\(error)".contains("chmod 600 \(keyFile)")
        }
    }

    @Test func aSealedValueOpensOnlyWhereItWasStoredAndUnchanged() throws {
        let sealer = SecretSealer(key: SealingKey(key: SymmetricKey(size: .bits256), source: .keyFile))
        let sealed = try sealer.seal(Self.credentials, context: SealedColumn.credentials(account: "acc_1"))
        #expect(try sealer.open(sealed, context: SealedColumn.credentials(account: "acc_1")) == Self.credentials)
        #expect(throws: SealingError.self) { try sealer.open(sealed, context: SealedColumn.credentials(account: "acc_2")) }
        var tampered = sealed
        tampered[tampered.count - 1] ^= 1
        #expect(throws: SealingError.self) { try sealer.open(tampered, context: SealedColumn.credentials(account: "acc_1")) }
        let otherKey = SecretSealer(key: SealingKey(key: SymmetricKey(size: .bits256), source: .keyFile))
        #expect(throws: SealingError.self) { try otherKey.open(sealed, context: SealedColumn.credentials(account: "acc_1")) }
    }

    @Test(arguments: [("tpm2", SealingKey.Source.tpm2), ("host", .hostKey)])
    func theSystemdCredentialSaysWhatItIsBoundTo(sealedBy: String, source: SealingKey.Source) throws {
        let credentials = directory(), state = directory()
        defer { for path in [credentials, state] { try? FileManager.default.removeItem(atPath: path) } }
        try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: true)
        let key = Data((0..<32).map { UInt8($0) })
        try "pushagent-kek v1 sealed-by=\(sealedBy)\n\(key.base64EncodedString())\n"
            .write(toFile: credentials + "/" + SealingKey.credentialName, atomically: true, encoding: .utf8)
        let loaded = try SealingKey.load(credentialsDirectory: credentials, stateDirectory: state)
        #expect(loaded.source == source)
        #expect(!FileManager.default.fileExists(atPath: state + "/" + SealingKey.keyFileName), "no key file beside it")

        try "not a key".write(toFile: credentials + "/" + SealingKey.credentialName, atomically: true, encoding: .utf8)
        #expect {
            _ = try SealingKey.load(credentialsDirectory: credentials, stateDirectory: state)
        } throws: { error in
            "\(error)".contains("is not a pushagent sealing key")
        }
    }
}
