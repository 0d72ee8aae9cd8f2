import ClusterHarness
import ControlWire
import Foundation
import PushAgentCore
import PushSim
import Testing

/// `pushctl backup` on one daemon, `pushctl restore` on a fresh one (its own state and push token), with real
/// pushrelay, pushsim and pushagentd: the restored ForgeRock account gets its pushes at the new token and approves
/// end to end; PlusAuth accounts, which cannot be told a new token, say so, and a bound one must be enrolled again;
/// bad files change nothing.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct BackupRestoreTests {
    static let passphrase = "a passphrase for the tests"
    static let nobody: UInt32 = 65534

    @Test func aBackupRestoredIntoAFreshDaemonApprovesAPushEndToEnd() async throws {
        try await Cluster.run { cluster in
            try await cluster.startDaemon()
            let sim = SimAdminClient(baseURL: cluster.simURL)
            #expect(try await cluster.pushctl(["enroll", try await sim.enrollURI(.init(account: "alice", totp: true))]).status == 0)
            let bob = try await enrollBoundPlusAuthAccount(cluster, sim)
            #expect(try await cluster.pushctl(["enroll", try await sim.plusAuthEnrollURI(.init(account: "carol"))]).status == 0)
            let before = try await cluster.client.accounts()
            let oldToken = try await cluster.client.status().pushToken
            let file = cluster.directory + "/accounts.backup"

            let short = try await cluster.pushctl(["backup", "--output", file, "--passphrase-fd", "0"], input: "short\n")
            #expect(short.status == 2 && short.stderr.contains("at least 8 characters"), "\(short.stderr)")
            let backup = try await cluster.pushctl(["backup", "--output", file, "--passphrase-fd", "0"],
                                             input: Self.passphrase + "\n")
            #expect(backup.status == 0, "backup: \(backup.stderr)")
            #expect(backup.stdout.contains("backup of 3 account(s) written"), "\(backup.stdout)")
            #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600)
            let again = try await cluster.pushctl(["backup", "--output", file, "--passphrase-fd", "0"], input: Self.passphrase + "\n")
            #expect(again.status == 1 && again.stderr.contains("--force"), "an existing file is kept: \(again.stderr)")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            #expect(bytes.starts(with: Data("PUSHAGENT-BACKUP".utf8)))
            #expect(bytes.range(of: Data("alice".utf8)) == nil, "nothing in clear")

            // A fresh daemon: its own state, so its own relay registration and push token.
            await cluster.daemon?.stop()
            try FileManager.default.moveItem(atPath: cluster.stateDirectory, toPath: cluster.directory + "/agent-old")
            try await cluster.startDaemon()
            let newToken = try await cluster.client.status().pushToken
            #expect(newToken != nil && newToken != oldToken)

            try await refusedRestoresChangeNothing(cluster, file: file, bytes: bytes)

            let restore = try await cluster.pushctl(["restore", file, "--passphrase-fd", "0"], input: Self.passphrase + "\n")
            #expect(restore.status == 0, "restore: \(restore.stderr)")
            #expect(restore.stdout.contains("restored") && restore.stdout.contains("needs_reenrollment"), "\(restore.stdout)")
            #expect(restore.stdout.contains("remove it (pushctl remove \(bob.id)) and enroll it again"), "\(restore.stdout)")
            #expect(restore.stdout.contains("PlusAuth has no call to change a device's push token"), "carol: \(restore.stdout)")
            let restored = try await cluster.client.accounts()
            #expect(Set(restored.map(\.id)) == Set(before.map(\.id)), "the same accounts, with their ids")
            #expect(cluster.daemon?.text.contains(Self.passphrase) == false, "the passphrase is never logged")

            try await eventually("ForgeRock (pushsim's AM) is told the new machine's push token") {
                try await sim.deviceTokens()["alice"] == newToken
            }
            let push = try await sim.push(.init(account: "alice", message: "after the restore"))
            try await eventually("the push reaches the new daemon") {
                try await cluster.client.approvals(state: .pending).contains { $0.message == "after the restore" }
            }
            let approval = try #require(try await cluster.client.approvals(state: .pending).first)
            let approve = try await cluster.pushctl(["approve", approval.id])
            #expect(approve.status == 0, "approve: \(approve.stderr)")
            let answer = try await sim.answer(to: push.messageId)
            #expect(answer.outcome == .approved && answer.verified)
            let alice = try #require(restored.first { $0.provider == .forgerock })
            #expect(try await cluster.pushctl(["code", alice.id]).status == 0, "the TOTP secret came along")

            let code = try await cluster.pushctl(["code", bob.id])
            #expect(code.status == 1 && code.stderr.contains("bound to the machine it was enrolled on"), "\(code.stderr)")

            let twice = try await cluster.pushctl(["restore", file, "--passphrase-fd", "0"], input: Self.passphrase + "\n")
            #expect(twice.status == 0 && twice.stdout.components(separatedBy: "skipped").count == 4, "\(twice.stdout)")
            #expect(try await cluster.client.accounts().count == 3)
        }
    }

    @Test(.enabled(if: getuid() == 0, "runs pushctl as another user, which needs root"))
    func aNonOperatorMayNeitherBackUpNorRestore() async throws {
        try await Cluster.run { cluster in
            try await cluster.startDaemon()
            let sim = SimAdminClient(baseURL: cluster.simURL)
            #expect(try await cluster.pushctl(["enroll", try await sim.enrollURI(.init(account: "alice"))]).status == 0)
            let file = cluster.directory + "/accounts.backup"
            #expect(try await cluster.pushctl(["backup", "-o", file, "--passphrase-fd", "0"], input: Self.passphrase + "\n").status == 0)
            _ = try await cluster.pushctl(["remove", try #require(try await cluster.client.accounts().first).id])
            // Let another user reach the socket and the file; SO_PEERCRED still decides what it may do.
            chmod(cluster.directory, 0o777)
            chmod(cluster.socketPath, 0o666)
            chmod(file, 0o644)

            let backup = try await cluster.pushctl(["backup", "-o", cluster.directory + "/nobody.backup", "--passphrase-fd", "0"],
                                             asUID: Self.nobody, input: Self.passphrase + "\n")
            #expect(backup.status == 1 && backup.stderr.contains("back up or restore"), "\(backup.stderr)")
            #expect(!FileManager.default.fileExists(atPath: cluster.directory + "/nobody.backup"))
            let restore = try await cluster.pushctl(["restore", file, "--passphrase-fd", "0"], asUID: Self.nobody,
                                              input: Self.passphrase + "\n")
            #expect(restore.status == 1 && restore.stderr.contains("back up or restore"), "\(restore.stderr)")
            #expect(try await cluster.client.accounts().isEmpty)
        }
    }

    /// A PlusAuth account whose tenant asked for binding (bind_sim) in a verified push.
    private func enrollBoundPlusAuthAccount(_ cluster: Cluster, _ sim: SimAdminClient) async throws -> Account {
        #expect(try await cluster.pushctl(["enroll", try await sim.plusAuthEnrollURI(.init(account: "bob"))]).status == 0)
        _ = try await sim.plusAuthPush(.init(type: "prompt", bindSim: true))
        try await eventually("the bound push arrives") {
            try await cluster.client.approvals(state: .pending).contains { $0.provider == .plusauth }
        }
        return try #require(try await cluster.client.accounts().first { $0.provider == .plusauth })
    }

    /// Wrong passphrase, tampered, truncated, future version: each refused with its own message, nothing added.
    private func refusedRestoresChangeNothing(_ cluster: Cluster, file: String, bytes: Data) async throws {
        func variant(_ name: String, _ change: (inout Data) -> Void) throws -> String {
            var changed = bytes
            change(&changed)
            let path = cluster.directory + "/" + name
            try changed.write(to: URL(fileURLWithPath: path))
            return path
        }
        let cases: [(path: String, passphrase: String, message: String)] = [
            (file, "not the passphrase", "wrong passphrase"),
            (try variant("tampered", { $0[$0.count - 20] ^= 0x01 }), Self.passphrase, "fails authentication"),
            (try variant("truncated", { $0 = $0.prefix($0.count - 7) }), Self.passphrase, "truncated"),
            (try variant("future", { $0[17] = 9 }), Self.passphrase, "newer pushagent"),
        ]
        for (path, passphrase, message) in cases {
            let result = try await cluster.pushctl(["restore", path, "--passphrase-fd", "0"], input: passphrase + "\n")
            #expect(result.status == 1 && result.stderr.contains(message), "\(path): \(result.stderr)")
        }
        let listing = try await cluster.pushctl(["accounts"])
        #expect(listing.stdout.contains("no accounts"), "nothing restored: \(listing.stdout)")
    }
}
