import ClusterHarness
import ControlWire
import Foundation
import PushAgentCore
import PushSim
import Testing

/// `pushctl backup` of a Guardian account, `pushctl restore` into a fresh daemon (its own state, so its own relay
/// registration and push token): Guardian is told the new token by PATCH, the restored account approves a push
/// whose answer verifies under the same device key, and its TOTP secret came along.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct GuardianBackupEndToEndTests {
    static let passphrase = "a passphrase for the Guardian test"

    @Test func aRestoredGuardianAccountIsPatchedWithTheNewTokenAndApproves() async throws {
        try await GuardianEndToEndTests.withEnrolledCluster { cluster, sim, account, issued in
            let oldToken = try #require(try await cluster.client.status().pushToken)
            let file = cluster.directory + "/accounts.backup"
            let backup = try await cluster.pushctl(["backup", "--output", file, "--passphrase-fd", "0"],
                                                   input: Self.passphrase + "\n")
            #expect(backup.status == 0, "backup: \(backup.stderr)")
            #expect(backup.stdout.contains("backup of 1 account(s) written"), "\(backup.stdout)")

            await cluster.daemon?.stop()
            try FileManager.default.moveItem(atPath: cluster.stateDirectory, toPath: cluster.directory + "/agent-old")
            try await cluster.startDaemon()
            let newToken = try #require(try await cluster.client.status().pushToken)
            #expect(newToken != oldToken)
            #expect(try await cluster.client.accounts().isEmpty)

            let restore = try await cluster.pushctl(["restore", file, "--passphrase-fd", "0"],
                                                    input: Self.passphrase + "\n")
            #expect(restore.status == 0, "restore: \(restore.stderr)")
            #expect(restore.stdout.contains("restored"), "\(restore.stdout)")
            let restored = try #require(try await cluster.client.accounts().first)
            #expect(restored.id == account.id && restored.provider == .guardian && restored.hasTOTP)

            try await eventually("Guardian (pushsim) is told the new machine's push token by PATCH") {
                try await sim.guardianDevices().first?.pushToken == newToken
            }
            let device = try #require(try await sim.guardianDevices().first)
            #expect(device.id == issued.deviceId && !device.deleted)
            #expect(device.tokenChanges.map(\.token) == [newToken] && device.tokenChanges.map(\.auth) == ["jwt"])
            try await eventually("the account is clear") { try await cluster.client.accounts().first?.needsTokenUpdate == false }

            let push = try await sim.guardianPush(GuardianEndToEndTests.context)
            let approval = try await GuardianEndToEndTests.pending(cluster)
            GuardianEndToEndTests.expectShowsTheContext(approval, account: account)
            let approve = try await cluster.pushctl(["approve", approval.id])
            #expect(approve.status == 0, "approve: \(approve.stderr)")
            let accepted = try await sim.guardianTransaction(push.transactionId, wait: 10)
            #expect(accepted.state == .accepted && accepted.verified, "signed by the restored device key")

            try await GuardianEndToEndTests.expectCodeMatchesTheSecret(cluster, account: restored, uri: issued.uri)
        }
    }
}
