@testable import ControlClient
import ControlWire
import Foundation
@testable import PushAgentDaemon
@testable import PushAgentCore
import Testing

/// Issue 24: a restore goes through the bounds enrollment and the wire keep, or changes nothing and says which
/// account is wrong and how.
@Suite struct RestoreRoutesTests {
    static let passphrase = "correct horse battery"
    static let fast = BackupFile.KDFParameters(log2N: 10, r: 1, p: 1)

    static func forgeRock(id: String = Identifier.make(prefix: "acc"), name: String = "alice",
                          createdAt: Date = Date(timeIntervalSince1970: 1_700_000_000),
                          credentials: Data? = nil) throws -> BackupAccount {
        let valid = ForgeRockCredentials(mechanismUid: id, sharedSecret: Data(repeating: 7, count: 32),
                                         authenticationURL: "http://127.0.0.1:9/auth",
                                         registrationURL: "http://127.0.0.1:9/reg", userId: "alice")
        return BackupAccount(id: id, provider: .forgerock, issuer: "ACME", name: name, createdAt: createdAt,
                             lookupKey: "mech-\(UUID())", credentials: try credentials ?? JSONEncoder().encode(valid),
                             totp: nil, boundToMachine: false)
    }

    static func file(_ accounts: [BackupAccount], kdf: BackupFile.KDFParameters = fast) throws -> Data {
        try file(document: BackupDocument(createdAt: Date(), accounts: accounts).encoded(), kdf: kdf)
    }

    static func file(document: Data, kdf: BackupFile.KDFParameters = fast) throws -> Data {
        try BackupFile.seal(document, passphrase: passphrase, kdf: kdf)
    }

    /// The restore is refused as invalid, its message holding every one of `parts`, and nothing was added.
    func expectRefused(_ agent: InProcessAgent, _ file: Data, saying parts: [String]) async throws {
        do {
            let restored = try await agent.client.restore(backup: file, passphrase: Self.passphrase)
            Issue.record("restored: \(restored.accounts.map(\.id))")
        } catch ControlClientError.api(let status, let error) {
            #expect(status == 400 && error.code == .invalidArgument, "\(status) \(error)")
            for part in parts { #expect(error.message.contains(part), "'\(part)' in: \(error.message)") }
            #expect(error.message.contains("nothing was restored"), "\(error.message)")
            #expect(!error.message.contains("DecodingError") && !error.message.contains("codingPath"), "\(error.message)")
        }
        #expect(try await agent.client.accounts().isEmpty, "all or nothing")
        #expect(try await agent.store.auditEntries(event: "restore_refused").count >= 1)
    }

    /// Before: restored, and every listing failed from then on ("could not decode Date … 10000-01-01").
    @Test func aCreationTimePastYear9999IsRefused() async throws {
        try await InProcessAgent.with { agent in
            let late = try Self.forgeRock(createdAt: Date(timeIntervalSince1970: 253_402_300_800))
            try await expectRefused(agent, try Self.file([try Self.forgeRock(), late]),
                                    saying: [late.id, "created_at", "9999"])
        }
    }

    /// Before: restored, and never removable (404).
    @Test(arguments: ["", "acc_x/../y z", "acc_ABCDEFGHIJKLMNOP"])
    func anIdNotMadeByPushagentIsRefused(id: String) async throws {
        try await InProcessAgent.with { agent in
            try await expectRefused(agent, try Self.file([try Self.forgeRock(), try Self.forgeRock(id: id)]),
                                    saying: ["\"\(id)\"", "acc_"])
        }
    }

    @Test func aHugeNameIsRefused() async throws {
        // A megabyte's upload on a machine loaded by the whole suite once took longer than the 10 s request deadline,
        // which is not what this test is about.
        try await InProcessAgent.with(configure: { $0.controlRequestTimeoutSeconds = 120 }) { agent in
            let huge = try Self.forgeRock(name: String(repeating: "n", count: 700_000))
            try await expectRefused(agent, try Self.file([huge]), saying: [huge.id, "name", "700000"])
        }
    }

    /// Before: restored as dead accounts, whose note then blamed ForgeRock.
    @Test(arguments: ["not json", #"{"sharedSecret":5}"#])
    func credentialsItsProviderCannotReadAreRefused(credentials: String) async throws {
        try await InProcessAgent.with { agent in
            let broken = try Self.forgeRock(credentials: Data(credentials.utf8))
            try await expectRefused(agent, try Self.file([broken]), saying: [broken.id, "ForgeRock", "credentials"])
        }
    }

    /// Before: a raw `DecodingError` dump.
    @Test func anUnknownProviderIsNamedWithTheKnownOnes() async throws {
        try await InProcessAgent.with { agent in
            let account = try Self.forgeRock()
            let json = String(decoding: try BackupDocument(createdAt: Date(), accounts: [account]).encoded(), as: UTF8.self)
                .replacingOccurrences(of: #""provider":"forgerock""#, with: #""provider":"okta""#)
            try await expectRefused(agent, try Self.file(document: Data(json.utf8)),
                                    saying: [account.id, "\"okta\"", "hyphen, forgerock, plusauth, privacyidea"])
        }
    }

    /// Before: 8 restores at once took minutes and hundreds of MiB; now one runs and the others are told. The running
    /// one is held by the test, not made slow: a slow KDF raced the machine's load (too slow for the client's timeout
    /// on a loaded machine, and on a fast one over before the next arrived).
    @Test func aRestoreOrBackupWhileOneRunsIsAnsweredBusy() async throws {
        try await InProcessAgent.with { agent in
            let file = try Self.file([try Self.forgeRock()])
            func outcome(_ call: () async throws -> Void) async -> String {
                do { try await call(); return "ok" }
                catch ControlClientError.api(let status, let error) { return "\(status) \(error.code.rawValue) \(error.message)" }
                catch { return "\(error)" }
            }
            let busy = "429 busy another backup or restore is running (a restore held by the test)"
            try await agent.agent.backups.oneAtATime.run("a restore held by the test") {
                let restore = await outcome { _ = try await agent.client.restore(backup: file, passphrase: "wrong passphrase!") }
                #expect(restore.hasPrefix(busy), "\(restore)")
                let backup = await outcome { _ = try await agent.client.backup(passphrase: Self.passphrase) }
                #expect(backup.hasPrefix(busy), "\(backup)")
            }
            let after = await outcome { _ = try await agent.client.restore(backup: file, passphrase: "wrong passphrase!") }
            #expect(after.hasPrefix("400 invalid_argument wrong passphrase"), "once it has finished: \(after)")
        }
    }
}
