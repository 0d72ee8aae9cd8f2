import ClusterHarness
import ControlWire
import Foundation
import PushAgentCore
import Testing

/// PlusAuth's offline codes and device binding, through the real processes.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct PlusAuthCodesEndToEndTests {
    @Test func pushctlCodeEqualsOathtool() async throws {
        try await PlusAuthEndToEndTests.withCluster { cluster, sim in
            try await cluster.startDaemon()
            let uri = try await sim.plusAuthEnrollURI(.init(algorithm: "SHA512", digits: 8, period: 45))
            #expect(try await cluster.pushctl(["enroll", uri]).status == 0)
            let account = try #require(try await cluster.client.accounts().first)
            let totp = try PlusAuthEnrollmentURI.parse(uri).totp
            let hexKey = totp.secret.map { String(format: "%02x", $0) }.joined()

            // The code belongs to the period of some instant between `before` and `after`: oathtool at both ends.
            let before = Int64(Date().timeIntervalSince1970)
            let shown = try await cluster.pushctl(["--json", "code", account.id])
            let after = Int64(Date().timeIntervalSince1970)
            #expect(shown.status == 0, "code: \(shown.stderr)")
            let code = try JSONDecoder().decode(CodeResponse.self, from: Data(shown.stdout.utf8)).code
            var expected: Set<String> = []
            for time in [before, after] {
                expected.insert(try await CommandResult.run(
                    "/usr/bin/oathtool", ["--totp=sha512", "--digits=8", "--time-step-size=45s", "-N", "@\(time)", hexKey])
                    .stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            #expect(expected.contains(code), "pushctl code \(code), oathtool \(expected)")
            #expect(code.count == 8)
        }
    }

    @Test func aBoundAccountIsRefusedAfterTheMachineIdentityChanges() async throws {
        try await PlusAuthEndToEndTests.withCluster { cluster, sim in
            let machineA = cluster.directory + "/machine-id-a", machineB = cluster.directory + "/machine-id-b"
            try "0123456789abcdef0123456789abcdef\n".write(toFile: machineA, atomically: true, encoding: .utf8)
            try "fedcba9876543210fedcba9876543210\n".write(toFile: machineB, atomically: true, encoding: .utf8)
            try await cluster.startDaemon(extraEnvironment: ["PUSHAGENT_MACHINE_ID_FILE": machineA])
            #expect(try await cluster.pushctl(["enroll", try await sim.plusAuthEnrollURI()]).status == 0)
            let account = try #require(try await cluster.client.accounts().first)

            // On the machine it was enrolled on, a bound push and the code work.
            _ = try await sim.plusAuthPush(.init(type: "prompt", bindSim: true))
            try await eventually("the bound push arrives") { try await !cluster.client.approvals(state: .pending).isEmpty }
            #expect(try await cluster.pushctl(["code", account.id]).status == 0)

            // Same state, another machine identity.
            await cluster.daemon?.stop()
            try await cluster.startDaemon(extraEnvironment: ["PUSHAGENT_MACHINE_ID_FILE": machineB])
            _ = try await sim.plusAuthPush(.init(type: "prompt", bindSim: true))
            var rejected: RejectedPush?
            try await eventually("the bound push is refused") {
                rejected = try await cluster.client.history().compactMap(\.rejectedPush).first { $0.reason == .bindingChanged }
                return rejected != nil
            }
            #expect(rejected?.message.contains("this machine's identity has changed since it was enrolled") == true)
            #expect(rejected?.message.contains("pushctl remove \(account.id)") == true, "says how to fix it")
            #expect(try await cluster.client.approvals(state: .pending).count == 1, "only the push from before the change")

            let code = try await cluster.pushctl(["code", account.id])
            #expect(code.status == 1)
            #expect(code.stderr.contains("its pushes and codes are refused until it is enrolled again"), "\(code.stderr)")
            #expect(cluster.daemon?.text.contains("push rejected: account \(account.id): the account is bound") == true)

            // Once noticed, the refusal stays, even for pushes that no longer ask for binding.
            _ = try await sim.plusAuthPush(.init(type: "prompt", bindSim: false))
            try await eventually("the unbound push is refused too") {
                try await cluster.client.history().compactMap(\.rejectedPush).filter { $0.reason == .bindingChanged }.count == 2
            }
        }
    }
}
