import ClusterHarness
import ControlWire
import Foundation
import PushAgentCore
import PushSim
import Testing

/// The relay forgets the device (its database is lost): the agent registers again, its push token changes, and the
/// providers must be told, or their pushes go to a token nobody reads. Real relay, daemon and pushsim.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct PushTokenChangeTests {
    @Test func aRelayThatForgotTheDeviceLeadsToANewTokenThatForgeRockIsToldAndPlusAuthNeedsReEnrolling() async throws {
        try await Cluster.run { cluster in
            try await cluster.startDaemon()
            let sim = SimAdminClient(baseURL: cluster.simURL)
            #expect(try await cluster.pushctl(["enroll", try await sim.enrollURI(.init(account: "alice"))]).status == 0)
            #expect(try await cluster.pushctl(["enroll", try await sim.plusAuthEnrollURI(.init(account: "bob"))]).status == 0)
            let oldToken = try await cluster.client.status().pushToken
            #expect(try await sim.deviceTokens()["alice"] == oldToken)

            try await cluster.restartRelayWithoutItsDatabase()
            let newToken = try await cluster.newPushToken(replacing: oldToken)
            try await eventually("ForgeRock (pushsim's AM) is told the new token") {
                try await sim.deviceTokens()["alice"] == newToken
            }
            var accounts: [Account] = []
            try await eventually("the ForgeRock account is clear and the PlusAuth one says what to do") {
                accounts = try await cluster.client.accounts()
                let plusAuth = accounts.first { $0.provider == .plusauth }
                return accounts.first { $0.provider == .forgerock }?.needsTokenUpdate == false
                    && plusAuth?.tokenUpdateProblem != nil
            }
            let plusAuth = try #require(accounts.first { $0.provider == .plusauth })
            #expect(plusAuth.needsTokenUpdate)
            #expect(plusAuth.tokenUpdateProblem?.contains("pushctl remove \(plusAuth.id)") == true,
                    "\(plusAuth.tokenUpdateProblem ?? "")")
            let listing = try await cluster.pushctl(["accounts"]).stdout
            #expect(listing.contains("push token changed: PlusAuth has no call to change a device's push token"), "\(listing)")

            let push = try await sim.push(.init(message: "after the token change"))
            try await eventually("a ForgeRock push reaches the new token") {
                try await cluster.client.approvals(state: .pending).contains { $0.message == "after the token change" }
            }
            let approval = try #require(try await cluster.client.approvals(state: .pending).first)
            #expect(try await cluster.pushctl(["approve", approval.id]).status == 0)
            let answer = try await sim.answer(to: push.messageId)
            #expect(answer.outcome == .approved && answer.verified)

            await cluster.daemon?.stop()
            try await cluster.startDaemon()
            let afterRestart = try await cluster.client.accounts()
            #expect(afterRestart.first { $0.provider == .plusauth }?.needsTokenUpdate == true,
                    "the PlusAuth account stays flagged across a restart")
            #expect(afterRestart.first { $0.provider == .forgerock }?.needsTokenUpdate == false)
        }
    }

    @Test func anUnreachableProviderIsRetriedAndToldAfterARestart() async throws {
        try await Cluster.run { cluster in
            try await cluster.startDaemon()
            let sim = SimAdminClient(baseURL: cluster.simURL)
            #expect(try await cluster.pushctl(["enroll", try await sim.enrollURI(.init(account: "alice"))]).status == 0)
            let oldToken = try await cluster.client.status().pushToken

            try await sim.setOutage(down: true)
            try await cluster.restartRelayWithoutItsDatabase()
            try await eventually("telling ForgeRock fails and is shown") {
                let account = try await cluster.client.accounts().first
                return account?.needsTokenUpdate == true
                    && account?.tokenUpdateProblem?.contains("ForgeRock could not be told the new push token") == true
            }
            let listing = try await cluster.pushctl(["accounts"]).stdout
            #expect(listing.contains("HTTP 503") && listing.contains("(retrying)"), "\(listing)")
            try await eventually("the update is tried again") {
                (cluster.daemon?.text ?? "").components(separatedBy: "could not be told the new push token").count > 2
            }

            // Stopped while AM is still down: only the next start can finish the update.
            await cluster.daemon?.stop()
            try await sim.setOutage(down: false)
            try await cluster.startDaemon()
            let newToken = try #require(try await cluster.client.status().pushToken)
            #expect(newToken != oldToken)
            try await eventually("the next start tells AM") {
                let told = try await sim.deviceTokens()["alice"] == newToken
                let flagged = try await cluster.client.accounts().first?.needsTokenUpdate
                return told && flagged == false
            }
            #expect(try await cluster.client.accounts().first?.tokenUpdateProblem == nil)
        }
    }
}
