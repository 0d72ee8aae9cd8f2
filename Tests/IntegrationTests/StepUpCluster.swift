import ClusterHarness
import ControlWire
import Foundation
import PushAgentCore
import PushSim
import Testing

/// A running cluster with a ForgeRock account that carries TOTP (an `mfauth://totp` URI from pushsim), plus helpers
/// to start the step-up examples against it: `stepup-server` (protected endpoint) and `stepup-example` (client).
struct StepUpCluster {
    let cluster: Cluster
    let account: Account
    /// The account's TOTP parameters, as the server side shares them (read from the same enrollment URI).
    let totp: TOTPParameters

    static func run(_ body: (StepUpCluster) async throws -> Void) async throws {
        try await Cluster.run { cluster in
            try await cluster.startDaemon()
            let uri = try await SimAdminClient(baseURL: cluster.simURL).enrollURI(.init(account: "alice", totp: true))
            let enroll = try await cluster.pushctl(["enroll", uri])
            try #require(enroll.status == 0, "enroll: \(enroll.stderr)")
            guard let parsed = try EnrollmentURI.parse(uri).details(as: ForgeRockEnrollmentURI.self), let totp = parsed.totp else {
                throw HarnessError("pushsim's TOTP enrollment URI carries no TOTP parameters: \(uri)")
            }
            let account = try #require(try await cluster.client.accounts().first)
            #expect(account.hasTOTP)
            try await body(StepUpCluster(cluster: cluster, account: account, totp: totp))
        }
    }

    /// Starts `stepup-server` with `trigger`; code triggers get the account's secret, receipt triggers the device's
    /// published keys (`pushctl --json jwks`). Returns the process and its protected URL.
    func startServer(trigger: String) async throws -> (ManagedProcess, String) {
        var arguments = ["--listen", "127.0.0.1:0", "--trigger", trigger]
        if trigger.hasSuffix("otp") {
            arguments += ["--totp-secret", Base32.encode(totp.secret)]
        } else {
            let jwks = try await cluster.pushctl(["--json", "jwks"])
            try #require(jwks.status == 0, "pushctl jwks: \(jwks.stderr)")
            let file = cluster.directory + "/jwks.json"
            try Data(jwks.stdout.utf8).write(to: URL(fileURLWithPath: file))
            arguments += ["--jwks", file]
        }
        let server = try ManagedProcess(name: "stepup-server", executable: Binaries.path("stepup-server"), arguments: arguments)
        let url = try await server.waitForLine(startingWith: "stepup-server listening on ")
        return (server, url + "/protected")
    }

    func exampleArguments(_ url: String, trigger: String, requests: Int = 1) -> [String] {
        var arguments = [url, "--socket", cluster.socketPath, "--trigger", trigger, "--requests", "\(requests)"]
        if trigger.hasSuffix("otp") { arguments += ["--account", account.id] }
        return arguments
    }

    func startExample(_ url: String, trigger: String, requests: Int = 1) throws -> ManagedProcess {
        try ManagedProcess(name: "stepup-example", executable: Binaries.path("stepup-example"),
                           arguments: exampleArguments(url, trigger: trigger, requests: requests))
    }

    /// The step-ups waiting for an answer, once there are `count`.
    func pendingStepUps(count: Int = 1) async throws -> [Approval] {
        var stepUps: [Approval] = []
        try await eventually("\(count) pending step-up(s)") {
            stepUps = try await cluster.client.approvals(state: .pending).filter { $0.kind == .stepup }
            return stepUps.count >= count
        }
        return stepUps
    }
}

extension String {
    func occurrences(of part: String) -> Int { components(separatedBy: part).count - 1 }
}
