import ClusterHarness
import ControlWire
import PushAgentCore
import Foundation
import Testing

/// A provider that sends through Google's FCM reaches the agent: pushsim plays ForgeRock AM and sends to the token
/// the agent gave at enrollment (`pushctl enroll --fcm-app default`) through pushsim's FCM emulator, which encrypts
/// it for the agent's registration and delivers it over MCS; the agent decrypts, shows, and answers AM.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct FCMEndToEndTests {
    @Test func aForgeRockPushSentThroughFCMIsApprovedAndTheAnswerReachesTheProvider() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fcm-e2e-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let emulator = try await FCMEmulatorProcess(directory: directory)
        defer { Task { await emulator.stop() } }
        try await Cluster.run(simSendsThrough: emulator.sendBaseURL) { cluster in
            try await cluster.startDaemon(extraEnvironment: emulator.daemonEnvironment)
            try await eventually("pushagentd logged in to FCM") {
                try await cluster.client.status().pushSources?.first { $0.name == "fcm" }?.state == "connected"
            }
            let sim = SimClient(baseURL: cluster.simURL)
            let enroll = try await cluster.pushctl(["enroll", "--fcm-app", "default", try await sim.enrollURI()])
            #expect(enroll.status == 0, "\(enroll.stderr)")

            let push = try await sim.push(message: "Sign in through Google?")
            var pending: [Approval] = []
            try await eventually("the push arrived through FCM") {
                pending = try await cluster.client.approvals(state: .pending)
                return pending.count == 1
            }
            #expect(pending[0].message == "Sign in through Google?")
            #expect(emulator.process.text.contains("fcm send:"), "it went through the emulator, not the relay")
            let approve = try await cluster.pushctl(["approve", pending[0].id])
            #expect(approve.status == 0, "\(approve.stderr)")
            try await eventually("AM got the answer") {
                try await sim.answers().contains { $0.messageId == push.messageId && $0.outcome == "approved" && $0.verified }
            }
            try await eventually("the message was acknowledged over MCS once committed") {
                emulator.process.text.split(separator: "\n").last { $0.hasPrefix("pushsim: fcm ack:") }?
                    .hasSuffix(" 0 unacknowledged") == true
            }

            let status = try await cluster.pushctl(["status"])
            #expect(status.stdout.contains("fcm"), "\(status.stdout)")
            let accounts = try await cluster.pushctl(["accounts"])
            #expect(accounts.stdout.contains("PUSHES VIA") && accounts.stdout.contains("fcm (default)"), "\(accounts.stdout)")
            let bad = try await cluster.pushctl(["enroll", "--fcm-app", "other", try await sim.enrollURI(account: "bob")])
            #expect(bad.status != 0 && bad.stderr.contains("not registered with FCM for the Firebase app 'other'"),
                    "\(bad.stderr)")

            // Google forgetting the registration (an emulator started again, empty): the login is refused, the agent
            // registers anew under a new token, tells AM the new token, and the next push arrives through it.
            await emulator.stop()
            let fresh = try await emulator.restartedEmpty(directory: directory)
            defer { Task { await fresh.stop() } }
            try await eventually("pushagentd registered again and logged in", timeout: .seconds(30)) {
                guard fresh.process.text.contains("fcm mcs login") else { return false }
                return try await cluster.client.status().pushSources?.first { $0.name == "fcm" }?.state == "connected"
            }
            #expect(cluster.daemon?.text.contains("MCS refused this machine's registration") == true)
            try await eventually("AM was told the new FCM token") {
                try await cluster.client.accounts().allSatisfy { !$0.needsTokenUpdate }
            }
            let second = try await sim.push(message: "Still reachable?")
            try await eventually("the next push arrived through the new registration") {
                try await cluster.client.approvals(state: .pending).contains { $0.message == "Still reachable?" }
            }
            #expect(!second.messageId.isEmpty)
            await fresh.stop()
        }
    }
}
