import ClusterHarness
import CurlHTTP
import ControlWire
import Foundation
import PushSim
import Synchronization
import Testing

/// Issue 16, end to end: three pushrelay processes on one PostgreSQL behind nginx (round robin), so the daemon's
/// polls and pushsim's sends go through all three in turn; one is SIGKILLed mid-stream and started again.
@Suite(.serialized, .timeLimit(.minutes(2)), .enabled(if: getuid() == 0, "PostgreSQL runs as its own user through setpriv"))
struct PostgresRelayClusterTests {
    @Test func killingOneOfThreeInstancesLosesAndDoublesNoApproval() async throws {
        let postgres = try await PostgresServer()
        var relays: RelayInstances?, cluster: Cluster?, balancer: NginxBalancer?
        func stopAll() async {
            await cluster?.stopAll()
            await balancer?.stop()
            await relays?.stopAll()
            await postgres.stop()
        }
        do {
            let instances = try await RelayInstances(count: 3, postgres: postgres)
            relays = instances
            // The cluster's relay address is nginx's: pushagentd and pushsim both reach the relays through it.
            let started = try await Cluster(startRelay: false)
            cluster = started
            balancer = try await NginxBalancer(port: try #require(URL(string: started.relayURL)?.port), upstreams: instances.addresses)
            try await runPushes(cluster: started, relays: instances)
        } catch {
            print("pushagentd output:\n\(cluster?.daemon?.text ?? "")\npushrelay-1 output:\n\(relays?.output(1) ?? "")")
            await stopAll()
            throw error
        }
        await stopAll()
    }

    /// Issue 24: a database error a retry will not cure is a 500 whose log line says what the relay was doing and
    /// what PostgreSQL said (postgres-nio's own description is a redacted "Generic description"), never a value.
    @Test func aDatabaseErrorIsLoggedWithItsSQLStateAndStatement() async throws {
        let postgres = try await PostgresServer()
        let relays = try await RelayInstances(count: 1, postgres: postgres)
        do {
            let registration = try await CurlHTTPClient.shared.send(HTTPRequest(method: "POST", url: relays.urls[0] + "/v1/devices"))
            let token = try #require(try JSONDecoder().decode([String: String].self, from: registration.body)["token"])
            try await postgres.sql("ALTER TABLE message ADD CONSTRAINT data_is_short CHECK (length(data) < 20)", database: "pushrelay")
            let sender = RelaySender(baseURL: relays.urls[0], project: Cluster.project, key: Cluster.senderKey)
            let refused = try await sender.post(token: token, data: ["value": "not-for-the-log-0123456789"])
            #expect(refused.status == 500)
            let output = relays.output(0)
            let line = try #require(output.split(separator: "\n").first { $0.contains("messages:send failed") }, "\(output)")
            #expect(line.contains("storing a message for device"))
            #expect(line.contains("violates check constraint \"data_is_short\" (SQLSTATE 23514)"))
            #expect(line.contains("PL/pgSQL function pushrelay_enqueue"))
            #expect(line.contains("statement: SELECT ord, seq, collapsed FROM pushrelay_enqueue_batch($1"))
            #expect(!output.contains("not-for-the-log"), "no parameter's value")
        } catch {
            await relays.stopAll()
            await postgres.stop()
            throw error
        }
        await relays.stopAll()
        await postgres.stop()
    }

    /// Three senders push at once; a third of the way in, the instance holding the daemon's long-poll is killed, and
    /// two thirds in it is started again.
    private func runPushes(cluster: Cluster, relays: RelayInstances) async throws {
        try await cluster.startDaemon()
        let sim = SimAdminClient(baseURL: cluster.simURL)
        #expect(try await cluster.pushctl(["enroll", try await sim.enrollURI()]).status == 0)

        let total = 90, senders = 3
        let ledger = SendLedger()
        async let killed: Int = {
            try await eventually("a third of the pushes are sent", timeout: .seconds(30)) { ledger.accepted.count >= total / 3 }
            var holder = 0
            try await eventually("an instance holds the daemon's long-poll") {
                for index in relays.addresses.indices where try await relays.waitingPolls(index) > 0 {
                    holder = index
                    return true
                }
                return false
            }
            try await relays.kill(holder)
            try await eventually("two thirds of the pushes are sent", timeout: .seconds(30)) { ledger.accepted.count >= 2 * total / 3 }
            try await relays.start(holder)
            return holder
        }()
        await withTaskGroup(of: Void.self) { group in
            for sender in 0..<senders {
                group.addTask {
                    for n in stride(from: sender, to: total, by: senders) {
                        let message = "push-\(n)"
                        // A send whose instance died under it is refused (502); it may still have been stored.
                        let sent = (try? await sim.push(.init(message: message))) != nil
                        ledger.record(message, accepted: sent)
                        try? await Task.sleep(for: .milliseconds(30))
                    }
                }
            }
        }
        let victim = try await killed
        let (accepted, refused) = (ledger.accepted, ledger.refused)
        try await eventually("every accepted push is an approval", timeout: .seconds(30)) {
            Set(try await cluster.client.approvals().map(\.message)).isSuperset(of: accepted)
        }
        // A message delivered twice would show up within the daemon's next poll rounds.
        try await Task.sleep(for: .seconds(1))
        let messages = try await cluster.client.approvals().map(\.message)
        let counts = Dictionary(messages.map { ($0, 1) }, uniquingKeysWith: +)
        let lost = accepted.filter { counts[$0] == nil }
        let duplicated = counts.filter { $0.value > 1 }.map(\.key)
        print("postgres relay cluster: killed pushrelay-\(victim) holding the daemon's poll; sent \(total), accepted \(accepted.count), refused \(refused.count), approvals \(messages.count), lost \(lost.count), duplicated \(duplicated.count)")
        #expect(lost.isEmpty, "lost: \(lost)")
        #expect(duplicated.isEmpty, "duplicated: \(duplicated)")
        #expect(refused.count <= senders, "only sends in flight on the killed instance are refused: \(refused)")
    }
}

/// The pushes the senders got an answer for, and those they did not.
private final class SendLedger: Sendable {
    private let state = Mutex<(accepted: [String], refused: [String])>(([], []))

    var accepted: [String] { state.withLock { $0.accepted } }
    var refused: [String] { state.withLock { $0.refused } }

    func record(_ message: String, accepted: Bool) {
        state.withLock { accepted ? $0.accepted.append(message) : $0.refused.append(message) }
    }
}
