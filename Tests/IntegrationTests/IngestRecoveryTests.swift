import ClusterHarness
import ControlWire
import Foundation
import PushAgentCore
import PushSim
import Testing

/// Issue 12, with the real processes: a push that crashes the daemon is dropped after a few restarts, and a relay
/// whose sequence goes backwards or falls behind the daemon's cursor loses nothing.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct IngestRecoveryTests {
    /// PushIngest.maximumAttempts, which the test cannot import from the daemon's module.
    enum PushIngestLimits { static let maximumAttempts = 3 }

    func sender(_ cluster: Cluster) -> RelaySender {
        RelaySender(baseURL: cluster.relayURL, project: Cluster.project, key: Cluster.senderKey)
    }

    func pushToken(_ cluster: Cluster) async throws -> String {
        try #require(try await cluster.client.status().pushToken)
    }

    /// Restarts the daemon after each crash on the poisoned push, until the push behind it (message `behind`) arrives.
    func sitOutCrashes(_ cluster: Cluster, environment: [String: String], until behind: String) async throws {
        for attempt in 1...PushIngestLimits.maximumAttempts {
            let exit = try #require(try await cluster.daemon?.waitForExit(timeout: .seconds(20)))
            #expect(exit.signaled && exit.status == SIGKILL, "attempt \(attempt) crashed")
            // It may die again before its socket answers: the next round's wait sees that exit.
            try? await cluster.startDaemon(extraEnvironment: environment, waitForRelay: false)
        }
        try await eventually("the push behind the poison arrives", timeout: .seconds(20)) {
            try await cluster.client.approvals(state: .pending).contains { $0.message == behind }
        }
    }

    /// Before: the push was never committed, so every restart received it again and died; no push arrived again.
    @Test func aPushThatCrashesTheDaemonIsDroppedAfterThreeAttempts() async throws {
        try await Cluster.run { cluster in
            let crashing = ["PUSHAGENT_TEST_FAULT": "crash-on-marked-push"]
            try await cluster.startDaemon(extraEnvironment: crashing)
            let sim = SimAdminClient(baseURL: cluster.simURL)
            #expect(try await cluster.pushctl(["enroll", try await sim.enrollURI()]).status == 0)
            try await sender(cluster).send(token: try await pushToken(cluster), data: ["pushagent-test:crash": "1"])
            _ = try await sim.push(.init(message: "behind the poison"))

            try await sitOutCrashes(cluster, environment: crashing, until: "behind the poison")
            #expect(cluster.daemon?.isRunning == true, "the attempt after the last crash dropped it")
            let dropped = try await cluster.client.history().compactMap(\.rejectedPush).filter { $0.reason == .unprocessable }
            #expect(dropped.count == 1)
            #expect(dropped.first?.message.contains("attempted 3 times") == true, "\(dropped.first?.message ?? "")")
            let history = try await cluster.pushctl(["history"])
            #expect(history.stdout.contains("unprocessable"), "pushctl history lists it: \(history.stdout)")
        }
    }

    /// The daemon commits a batch of first-time pushes together; after a crash, the pushes of the batch that were
    /// taken up before the poison one are committed one by one, so they are not dropped along with it.
    @Test func pushesAheadOfThePoisonInItsBatchAreNotDroppedWithIt() async throws {
        try await Cluster.run { cluster in
            try await cluster.startDaemon()
            let sim = SimAdminClient(baseURL: cluster.simURL)
            #expect(try await cluster.pushctl(["enroll", try await sim.enrollURI()]).status == 0)
            let token = try await pushToken(cluster)
            await cluster.daemon?.stop()
            // Queued while the daemon is down, so its first poll gets them as one batch.
            for message in ["ahead 1", "ahead 2"] { _ = try await sim.push(.init(message: message)) }
            try await sender(cluster).send(token: token, data: ["pushagent-test:crash": "1"])
            _ = try await sim.push(.init(message: "behind"))

            let crashing = ["PUSHAGENT_TEST_FAULT": "crash-on-marked-push"]
            try? await cluster.startDaemon(extraEnvironment: crashing, waitForRelay: false)
            try await sitOutCrashes(cluster, environment: crashing, until: "behind")
            let arrived = try await cluster.client.approvals().map(\.message).sorted()
            #expect(arrived == ["ahead 1", "ahead 2", "behind"])
            let dropped = try await cluster.client.history().compactMap(\.rejectedPush).filter { $0.reason == .unprocessable }
            #expect(dropped.count == 1, "only the poison: \(dropped.map(\.message))")
        }
    }

    /// Before: the daemon's cursor, taken by the restored relay as an acknowledgement, deleted the pushes sent after
    /// the restore (30 of the next 40 in the report).
    @Test func aRelayRestoredFromAnOlderBackupLosesNothing() async throws {
        try await Cluster.run { cluster in
            try await cluster.startDaemon()
            let sim = SimAdminClient(baseURL: cluster.simURL)
            #expect(try await cluster.pushctl(["enroll", try await sim.enrollURI()]).status == 0)
            func pushAndWait(_ messages: [String]) async throws {
                for message in messages { _ = try await sim.push(.init(message: message)) }
                try await eventually("\(messages.count) pushes arrive", timeout: .seconds(30)) {
                    let arrived = Set(try await cluster.client.approvals().map(\.message))
                    return messages.allSatisfy(arrived.contains)
                }
            }
            try await pushAndWait(["before the backup"])
            let relayState = cluster.directory + "/relay", backup = cluster.directory + "/relay-backup"
            await cluster.relay?.stop()
            try FileManager.default.copyItem(atPath: relayState, toPath: backup)
            try await cluster.startRelay()
            try await pushAndWait((1...10).map { "after the backup \($0)" })

            await cluster.relay?.stop()
            try FileManager.default.removeItem(atPath: relayState)
            try FileManager.default.copyItem(atPath: backup, toPath: relayState)
            try await cluster.startRelay()
            let afterRestore = (1...20).map { "after the restore \($0)" }
            try await pushAndWait(afterRestore)

            let all = try await cluster.client.approvals().map(\.message)
            #expect(all.count == Set(all).count, "nothing twice: \(all.count) approvals")
            #expect(all.count == 31)
            let status = try await cluster.client.status().relay
            #expect(status.resyncedAt != nil && status.resyncReason?.contains("never delivered") == true,
                    "status says what happened: \(status.resyncReason ?? "nothing")")
            #expect(try await cluster.pushctl(["status"]).stdout.contains("re-synced"))
        }
    }

    /// A forged poll reply with seq 10^15 moved the cursor past anything the relay would ever send: every later push
    /// was acknowledged unseen. Writing that cursor into the state stands in for the forged reply.
    @Test func aCursorFarBeyondTheRelayIsCorrected() async throws {
        try await Cluster.run { cluster in
            try await cluster.startDaemon()
            let sim = SimAdminClient(baseURL: cluster.simURL)
            #expect(try await cluster.pushctl(["enroll", try await sim.enrollURI()]).status == 0)
            await cluster.daemon?.stop()
            let database = cluster.stateDirectory + "/agent.sqlite"
            let update = try await CommandResult.run("/usr/bin/sqlite3", [database, "UPDATE device SET cursor = 1000000000000000"])
            #expect(update.status == 0, "\(update.stderr)")

            try await cluster.startDaemon()
            for n in 1...5 { _ = try await sim.push(.init(message: "after the jump \(n)")) }
            try await eventually("every push arrives", timeout: .seconds(30)) {
                try await cluster.client.approvals(state: .pending).count == 5
            }
            #expect(try await cluster.client.status().relay.resyncedAt != nil)
        }
    }
}
