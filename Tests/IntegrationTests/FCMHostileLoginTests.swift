import ClusterHarness
import ControlWire
import Foundation
import PushSim
import Testing

/// MCS servers that refuse, drop or flood a login (pushsim's emulator told to misbehave for several sessions), each
/// found by running the agent against a hostile MCS server nobody here wrote: a refusal other than an
/// authentication failure keeps the registration, an authentication failure is answered by one new registration and
/// not by a loop of them, a peer that accepts and closes is backed off from, and a ping flood costs little.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct FCMHostileLoginTests {
    /// Quick backoff for the tests (the default starts at 1 s).
    static let quickBackoff = ["PUSHAGENT_BACKOFF_INITIAL_SECONDS": "0.2", "PUSHAGENT_BACKOFF_MAX_SECONDS": "4"]

    static func count(_ text: String, _ needle: String) -> Int { text.components(separatedBy: needle).count - 1 }

    /// A 503 is Google being busy: before, each was answered with a new registration (a new GCM device, a new FCM
    /// token, the providers told again, four times in 12 s).
    @Test func aLoginRefusedWith503IsRetriedOnTheSameRegistration() async throws {
        try await FCMEndToEndTests.withFCMCluster(environment: Self.quickBackoff) { cluster, emulator in
            let token = try await cluster.client.fcmCheck().token
            #expect(try await emulator.misbehave("refuse_login_503", sessions: 3).status == 200)
            try await eventually("three refusals, then connected again", timeout: .seconds(30)) {
                guard cluster.daemon?.text.contains("MCS refused the login (503 service unavailable)") == true else {
                    return false
                }
                return try await FCMEndToEndTests.fcmState(cluster) == "connected"
            }
            try await Task.sleep(for: .seconds(1))
            #expect(try await cluster.client.fcmCheck().token == token, "the registration was kept")
            #expect(Self.count(emulator.process.text, "fcm check-in: device") == 1, "no new GCM device")
            #expect(cluster.daemon?.text.contains("registering again") == false)
        }
    }

    /// An authentication refusal means Google forgot the registration: one new registration. A refusal of that one
    /// too is not answered with another (it would change the token again and again): it is retried later, and
    /// `pushctl status` says why.
    @Test func aSecondAuthenticationRefusalRightAfterRegisteringIsBackedOff() async throws {
        try await FCMEndToEndTests.withFCMCluster(environment: Self.quickBackoff) { cluster, emulator in
            let token = try await cluster.client.fcmCheck().token
            #expect(try await emulator.misbehave("refuse_login_401", sessions: 4).status == 200)
            var detail: String?
            try await eventually("the status says why it stopped registering again", timeout: .seconds(30)) {
                detail = try await cluster.client.status().pushSources?.first { $0.name == "fcm" }?.detail
                return detail?.contains("refused the registration made again for it") == true
            }
            #expect(detail?.contains("pushctl fcm check") == true, "\(detail ?? "")")
            try await eventually("connected once the refusals end", timeout: .seconds(30)) {
                try await FCMEndToEndTests.fcmState(cluster) == "connected"
            }
            #expect(Self.count(emulator.process.text, "fcm check-in: device") == 2, "one new GCM device, not four")
            #expect(Self.count(cluster.daemon?.text ?? "", "registration (401 unknown device or wrong security token); registering again") == 1)
            #expect(try await cluster.client.fcmCheck().token != token)
        }
    }

    /// A peer that accepts the login and closes at once: before, every login reset the backoff, so it was logged in
    /// to every 0.5-1 s with two journal lines each time.
    @Test func aPeerThatAcceptsAndClosesIsBackedOffFromAndLoggedOnce() async throws {
        try await FCMEndToEndTests.withFCMCluster(environment: Self.quickBackoff) { cluster, emulator in
            let loginsBefore = Self.count(emulator.process.text, "fcm mcs login")
            #expect(try await emulator.misbehave("close_after_login", sessions: 1000).status == 200)
            try await Task.sleep(for: .seconds(10))
            let logins = Self.count(emulator.process.text, "fcm mcs login") - loginsBefore
            // With the backoff growing (0.1-0.2, 0.2-0.4, … up to 2-4 s) ten seconds hold about seven; reset at each
            // login they held thirty or more.
            #expect((2...10).contains(logins), "\(logins) logins in 10 s")
            let journal = cluster.daemon?.text ?? ""
            #expect(Self.count(journal, "notice [pushagentd] fcm: connected to") == 1, "\(journal)")
            #expect(Self.count(journal, "reconnecting in") <= 3, "\(journal)")
        }
    }

    /// 100,000 pings as fast as the peer can write them are answered at a bounded rate (before: one answer each,
    /// 9-10 s of CPU and 28 MiB more memory a flood, 49 MiB after three), and the connection still brings pushes.
    @Test func aPingFloodIsAnsweredAtABoundedRate() async throws {
        try await FCMEndToEndTests.withFCMCluster(environment: ["PUSHAGENT_FCM_HEARTBEAT_SECONDS": "60"]) { cluster, emulator in
            let sim = SimAdminClient(baseURL: cluster.simURL)
            #expect(try await cluster.pushctl(["enroll", "--fcm-app", "default", try await sim.enrollURI()]).status == 0)
            let pid = try #require(cluster.daemon?.pid)
            let rssBefore = try Self.residentKiB(pid)
            for flood in 1...3 {
                #expect(try await emulator.misbehave("ping_flood").status == 200)
                try await eventually("logged in to flooding session \(flood)", timeout: .seconds(30)) {
                    guard Self.count(emulator.process.text, "fcm mcs login") >= flood + 1 else { return false }
                    return try await FCMEndToEndTests.fcmState(cluster) == "connected"
                }
                _ = try await sim.push(.init(message: "Through flood \(flood)"))
                try await eventually("a push arrives behind flood \(flood)", timeout: .seconds(30)) {
                    try await cluster.client.approvals(state: .pending).contains { $0.message == "Through flood \(flood)" }
                }
            }
            let answered = Self.count(emulator.process.text, "fcm mcs ping answered")
            #expect(answered <= 30, "\(answered) of 300,000 pings answered")
            let grown = try Self.residentKiB(pid) - rssBefore
            print("ping floods: \(answered) of 300,000 answered; pushagentd's RSS grew \(grown) KiB")
            #expect(grown < 16 * 1024, "pushagentd's RSS grew \(grown) KiB in three floods")
        }
    }

    /// VmRSS from /proc/PID/status.
    static func residentKiB(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }

    /// A certificate no trusted CA signed says so, names the host and port, and says what to do; before, BoringSSL's
    /// raw error with a build path (`…CERTIFICATE_VERIFY_FAILED at /…/.build/checkouts/…/handshake.cc:320`).
    @Test func anUntrustedCertificateIsNamedWithWhatToDo() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fcm-ca-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await FCMEmulatorProcess.makeCertificate(directory + "/ca.pem", key: directory + "/key.pem")
        try await FCMEndToEndTests.withFCMCluster(environment: ["PUSHAGENT_FCM_CA_FILE": directory + "/ca.pem"],
                                                  waitForConnection: false) { cluster, emulator in
            var detail: String?
            try await eventually("the status says the certificate is not trusted", timeout: .seconds(30)) {
                detail = try await cluster.client.status().pushSources?.first { $0.name == "fcm" }?.detail
                return detail?.contains("is not signed by a CA this machine trusts") == true
            }
            let said = detail ?? ""
            #expect(said.contains("the TLS certificate of \(emulator.mcsHost):\(emulator.mcsPort)"), "\(said)")
            #expect(said.contains("fcm_ca_file") && said.contains("update-ca-certificates"), "\(said)")
            #expect(!said.contains(".build") && !said.contains("handshake.cc"), "\(said)")
        }
    }
}
