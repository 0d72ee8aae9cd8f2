import ClusterHarness
import ControlWire
import Foundation
import PushAgentCore
import Testing

/// What pushagent 972dcda wrote, when `Provider` was a closed Swift enum, opened by today's pushagentd: its state
/// directory (agent.sqlite and the secrets.key that seals it) and a `pushctl backup` file, both in
/// Tests/Fixtures/old-972dcda (made by make-fixtures.sh there, with that build's programs). The providers stored as
/// names ("forgerock", "plusauth", "hyphen") must come back as the same providers, through the typed client and in
/// pushctl's JSON, and what the old pushctl printed of the accounts and the history (kept beside the fixtures) must
/// be printed again, member for member.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct OldStoreAndBackupTests {
    static let passphrase = "a passphrase for the tests"
    /// Outside the test target's folder: SwiftPM would want files in it declared as resources.
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/old-972dcda")

    struct AccountRow: Equatable, Comparable, CustomStringConvertible {
        var id: String
        var provider: String
        var issuer: String
        var name: String
        var hasTOTP: Bool

        init(_ id: String, _ provider: String, _ issuer: String, _ name: String, totp: Bool) {
            (self.id, self.provider, self.issuer, self.name, hasTOTP) = (id, provider, issuer, name, totp)
        }
        init(_ account: Account) {
            self.init(account.id, account.provider.rawValue, account.issuer, account.name, totp: account.hasTOTP)
        }
        static func < (a: Self, b: Self) -> Bool { a.id < b.id }
        var description: String { "\(id) \(provider) \(issuer) \(name)\(hasTOTP ? " totp" : "")" }
    }

    struct ApprovalRow: Equatable, Comparable, CustomStringConvertible {
        var id: String
        var provider: String
        var accountID: String
        var state: String
        var title: String
        var message: String

        init(_ id: String, _ provider: String, _ accountID: String, _ state: String, _ title: String, _ message: String) {
            (self.id, self.provider, self.accountID, self.state, self.title, self.message) =
                (id, provider, accountID, state, title, message)
        }
        init(_ approval: Approval) {
            self.init(approval.id, approval.provider.rawValue, approval.accountId, approval.state.rawValue,
                      approval.title, approval.message)
        }
        static func < (a: Self, b: Self) -> Bool { a.id < b.id }
        var description: String { "\(id) \(provider) \(accountID) \(state) '\(title)' '\(message)'" }
    }

    static let alice = "acc_cgruvbl4a6eij7cv"
    static let carol = "acc_u3uj2fjvfmk6m5ep"
    static let dave = "acc_n2poqtegxnmlrjhm"

    /// Sorted by id.
    static let accounts = [
        AccountRow(alice, "forgerock", "PushSim", "alice", totp: true),
        AccountRow(dave, "hyphen", "PushSim", "dave@example.com", totp: false),
        AccountRow(carol, "plusauth", "PushSim", "carol", totp: true),
    ]

    /// Sorted by id.
    static let approvals = [
        ApprovalRow("apr_4fppynges6jzacan", "plusauth", carol, "approved", "Sign-in to fixture: PlusAuth approved",
                    "Did you try to sign in as carol?"),
        ApprovalRow("apr_nsg45jfudxohbhmp", "forgerock", alice, "approved", "Sign-in to PushSim",
                    "fixture: ForgeRock push, approved"),
        ApprovalRow("apr_u56zj5gn5d3qdzis", "plusauth", carol, "denied", "Sign-in to fixture: PlusAuth denied",
                    "Did you try to sign in as carol?"),
        ApprovalRow("apr_ujtj5iocvka4yi4i", "forgerock", alice, "denied", "Sign-in to PushSim",
                    "fixture: ForgeRock push, denied"),
    ]

    /// The account members that stay as they were. Not `needs_token_update` and `token_update_problem`: the daemon
    /// here has another relay, so it registers again and has its providers told the new push token.
    static let lastingAccountMembers = ["id", "provider", "issuer", "name", "created_at", "has_totp", "fcm_app",
                                        "muted_until", "mute_reason"]

    @Test func theNewDaemonOpensTheOldStore() async throws {
        try await Cluster.run { cluster in
            try copyOldState(to: cluster.stateDirectory)
            try await cluster.startDaemon()

            let accounts = try await cluster.client.accounts()
            #expect(accounts.map(AccountRow.init).sorted() == Self.accounts)
            let history = try await cluster.client.history()
            #expect(history.map(\.kind) == Array(repeating: .approval, count: 4), "only the four approvals")
            #expect(history.compactMap(\.approval).map(ApprovalRow.init).sorted() == Self.approvals)
            #expect(try await cluster.client.approvals(state: .pending).isEmpty)

            // pushctl's JSON: what the old pushctl printed, printed again.
            let listed = try await pushctlJSON(cluster, ["--json", "accounts"])
            try expectAsBefore(listed["accounts"], reference: "accounts.json", list: "accounts",
                               members: Self.lastingAccountMembers)
            let printedHistory = try await pushctlJSON(cluster, ["--json", "history"])
            try expectAsBefore(printedHistory["entries"], reference: "history.json", list: "entries", members: nil)

            // The TOTP secrets, sealed by the old daemon, open with its secrets.key.
            try await expectCodes(cluster, for: [Self.alice, Self.carol])
        }
    }

    @Test func theNewDaemonRestoresTheOldBackup() async throws {
        try await Cluster.run { cluster in
            try await cluster.startDaemon()
            let file = Self.fixtures.appendingPathComponent("accounts.backup").path
            let restore = try await cluster.pushctl(["--json", "restore", file, "--passphrase-fd", "0"],
                                                    input: Self.passphrase + "\n")
            #expect(restore.status == 0, "restore: \(restore.stderr)")
            let restored = try ControlJSON.decoder().decode(RestoreResponse.self, from: Data(restore.stdout.utf8))
            #expect(restored.accounts.map { "\($0.id) \($0.provider.rawValue) \($0.outcome.rawValue)" }.sorted() == [
                "\(Self.alice) forgerock restored", "\(Self.dave) hyphen restored", "\(Self.carol) plusauth restored",
            ].sorted())
            let printed = try #require(try JSONSerialization.jsonObject(with: Data(restore.stdout.utf8)) as? [String: Any])
            let providers = (printed["accounts"] as? [[String: Any]] ?? []).compactMap { $0["provider"] as? String }
            #expect(providers.sorted() == ["forgerock", "hyphen", "plusauth"], "the names in pushctl's JSON")

            let accounts = try await cluster.client.accounts()
            #expect(accounts.map(AccountRow.init).sorted() == Self.accounts)
            let listed = try await pushctlJSON(cluster, ["--json", "accounts"])
            try expectAsBefore(listed["accounts"], reference: "accounts.json", list: "accounts",
                               members: ["id", "provider", "issuer", "name", "created_at", "has_totp"])
            try await expectCodes(cluster, for: [Self.alice, Self.carol])
        }
    }

    /// The old state directory, as a daemon keeps its own: the directory 0700, its files 0600 (git keeps neither).
    private func copyOldState(to directory: String) throws {
        try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent("state").path, toPath: directory)
        #expect(chmod(directory, 0o700) == 0)
        for file in try FileManager.default.contentsOfDirectory(atPath: directory) {
            #expect(chmod(directory + "/" + file, 0o600) == 0)
        }
    }

    private func pushctlJSON(_ cluster: Cluster, _ arguments: [String]) async throws -> [String: Any] {
        let result = try await cluster.pushctl(arguments)
        #expect(result.status == 0, "pushctl \(arguments): \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
                            "pushctl \(arguments): \(result.stdout)")
    }

    /// Each object of the reference file's `list` is printed now too (matched by its id, or its approval's), with
    /// every member of `members` (nil: every member the old one had, nested ones too) as it was. Members added since
    /// are allowed.
    private func expectAsBefore(_ printed: Any?, reference: String, list: String, members: [String]?) throws {
        let data = try Data(contentsOf: Self.fixtures.appendingPathComponent(reference))
        let old = try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?[list] as? [[String: Any]])
        let new = try #require(printed as? [[String: Any]], "\(list) printed")
        func key(_ object: [String: Any]) -> String? {
            object["id"] as? String ?? (object["approval"] as? [String: Any])?["id"] as? String
        }
        #expect(new.compactMap(key).sorted() == old.compactMap(key).sorted(), "the same \(list)")
        for before in old {
            guard let now = new.first(where: { key($0) == key(before) }) else { continue }
            let compared = members.map { names in before.filter { names.contains($0.key) } } ?? before
            #expect(members.map { Set($0) == Set(compared.keys) } ?? true, "\(reference) has every member named")
            let differences = Self.differences(compared, now, at: key(before) ?? "?")
            #expect(differences.isEmpty, "\(reference): \(differences.joined(separator: "; "))")
        }
    }

    /// Where `new` lacks or changes something `old` has: objects member by member (new members allowed), arrays
    /// element by element, the rest as JSON text.
    static func differences(_ old: Any, _ new: Any, at path: String) -> [String] {
        if let old = old as? [String: Any] {
            guard let new = new as? [String: Any] else { return ["\(path): \(text(new)), was an object"] }
            return old.keys.sorted().flatMap { name in
                new[name].map { differences(old[name]!, $0, at: path + "." + name) } ?? ["\(path).\(name) is missing"]
            }
        }
        if let old = old as? [Any] {
            guard let new = new as? [Any], new.count == old.count else { return ["\(path): \(text(new)), was \(text(old))"] }
            return zip(old, new).enumerated().flatMap { differences($1.0, $1.1, at: "\(path)[\($0)]") }
        }
        return text(old) == text(new) ? [] : ["\(path): \(text(new)), was \(text(old))"]
    }

    static func text(_ value: Any) -> String {
        (try? JSONSerialization.data(withJSONObject: [value], options: [.sortedKeys, .fragmentsAllowed]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "\(value)"
    }

    /// `pushctl code` prints a code for each: the account's sealed TOTP secret opened.
    private func expectCodes(_ cluster: Cluster, for accounts: [String]) async throws {
        for account in accounts {
            let code = try await cluster.pushctl(["code", account])
            #expect(code.status == 0, "code \(account): \(code.stderr)")
            #expect(code.stdout.contains(/\b[0-9]{6}\b/), "code \(account): \(code.stdout)")
        }
    }
}
