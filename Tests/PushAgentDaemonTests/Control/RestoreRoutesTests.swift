@testable import ControlClient
import ControlWire
import Foundation
@testable import PushAgentDaemon
import PushAgentCore
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
        try await InProcessAgent.with { agent in
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
                                    saying: [account.id, "\"okta\"", "hyphen, plusauth, forgerock, privacyidea"])
        }
    }

    /// Before: 8 restores at once took minutes and hundreds of MiB; now one runs and the others are told.
    @Test func restoresAtOnceAreAnsweredBusy() async throws {
        try await InProcessAgent.with { agent in
            // Slow enough for the three to meet, not for the control client's 30 s timeout on a loaded machine
            // (2^16 once took more in the full parallel suite).
            let slow = try Self.file([try Self.forgeRock()], kdf: .init(log2N: 14, r: 8, p: 1))
            let outcomes = await withTaskGroup(of: String.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        do { return "ok \(try await agent.client.restore(backup: slow, passphrase: "wrong passphrase!").accounts.count)" }
                        catch ControlClientError.api(let status, let error) { return "\(status) \(error.code.rawValue) \(error.message)" }
                        catch { return "\(error)" }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { $0.hasPrefix("400 invalid_argument wrong passphrase") }.count >= 1, "\(outcomes)")
            let busy = outcomes.filter { $0.hasPrefix("429 busy another backup or restore is running") }
            #expect(busy.count >= 1, "\(outcomes)")
            #expect(busy.count + outcomes.filter { $0.hasPrefix("400") }.count == 3, "\(outcomes)")
        }
    }
}
