import ClusterHarness
import ControlWire
import PushAgentCore
import PushSim
import Foundation
import Testing

/// A provider that sends through Google's FCM reaches the agent: pushsim plays ForgeRock AM and sends to the token
/// the agent gave at enrollment (`pushctl enroll --fcm-app default`) through pushsim's FCM emulator, which encrypts
/// it for the agent's registration and delivers it over MCS; the agent decrypts, shows, and answers AM.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct FCMEndToEndTests {
    /// A cluster whose pushsim sends through a fresh FCM emulator, with pushagentd logged in to it (`environment` over
    /// the emulator's settings); stopped afterwards.
    static func withFCMCluster(environment: [String: String] = [:], config: String? = nil, waitForConnection: Bool = true,
                               emulatorKeepsState: Bool = false,
                               _ body: (Cluster, FCMEmulatorProcess) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fcm-e2e-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let emulator = try await FCMEmulatorProcess(directory: directory,
                                                    stateFile: emulatorKeepsState ? directory + "/fcm-state.json" : nil)
        defer { Task { await emulator.stop() } }
        try await Cluster.run(simSendsThrough: emulator.sendBaseURL) { cluster in
            var arguments: [String] = []
            if let config {
                try config.write(toFile: directory + "/pushagentd.toml", atomically: true, encoding: .utf8)
                arguments = ["--config", directory + "/pushagentd.toml"]
            }
            try await cluster.startDaemon(extraEnvironment: emulator.daemonEnvironment.merging(environment) { $1 },
                                          extraArguments: arguments)
            if waitForConnection {
                try await eventually("pushagentd logged in to FCM") { try await fcmState(cluster) == "connected" }
            }
            try await body(cluster, emulator)
        }
    }

    /// Enrolls a ForgeRock account on FCM app `app`, sends it a push and waits for the approval it makes.
    static func enrollAndPush(_ cluster: Cluster, _ sim: SimAdminClient, app: String, message: String) async throws
        -> (SimAdminAPI.PushResponse, Approval) {
        let enroll = try await cluster.pushctl(["enroll", "--fcm-app", app, try await sim.enrollURI()])
        #expect(enroll.status == 0, "\(enroll.stderr)")
        let push = try await sim.push(.init(message: message))
        var pending: [Approval] = []
        try await eventually("the push arrived through FCM app \(app)") {
            pending = try await cluster.client.approvals(state: .pending)
            return pending.count == 1
        }
        return (push, pending[0])
    }

    static func fcmState(_ cluster: Cluster, source: String = "fcm") async throws -> String? {
        try await cluster.client.status().pushSources?.first { $0.name == source }?.state
    }

    /// A second Firebase app, the default of PlusAuth's accounts: its own registration, token and connection.
    @Test func anAccountGoesToItsProvidersAppAndItsPushesArriveThroughIt() async throws {
        let config = """
            [fcm_apps.tenant]
            project_id = "tenant-mfa"
            api_key = "AIzaSyTenant"
            app_id = "1:222222222222:web:0b1c"
            sender_id = "222222222222"
            providers = ["plusauth"]
            """
        try await Self.withFCMCluster(config: config) { cluster, _ in
            try await eventually("the second app's connection logged in") {
                try await Self.fcmState(cluster, source: "fcm:tenant") == "connected"
            }
            let check = try await cluster.pushctl(["--json", "fcm", "check", "--app", "tenant"])
            #expect(check.status == 0, "\(check.stderr)")
            let tenant = try ControlJSON.decoder().decode(FCMCheckResponse.self, from: Data(check.stdout.utf8))
            #expect(tenant.projectID == "tenant-mfa" && tenant.senderID == "222222222222")
            let byDefault = try await cluster.client.fcmCheck()
            #expect(byDefault.app == "default" && byDefault.token != tenant.token && byDefault.device != tenant.device)

            let sim = SimAdminClient(baseURL: cluster.simURL)
            let enroll = try await cluster.pushctl(["--json", "enroll", try await sim.plusAuthEnrollURI(.init(account: "alice"))])
            #expect(enroll.status == 0, "\(enroll.stderr)")
            let account = try ControlJSON.decoder().decode(Account.self, from: Data(enroll.stdout.utf8))
            #expect(account.fcmApp == "tenant", "PlusAuth's default app, with no --fcm-app")
            #expect(try await sim.plusAuthRegistrations().first?.deviceToken == tenant.token)
            let listed = try await cluster.pushctl(["accounts"])
            #expect(listed.stdout.contains("fcm (tenant)"), "\(listed.stdout)")

            let push = try await sim.plusAuthPush(.init(type: "code"))
            var pending: [Approval] = []
            try await eventually("the push arrived through the tenant's app") {
                pending = try await cluster.client.approvals(state: .pending)
                return pending.count == 1
            }
            let approve = try await cluster.pushctl(["approve", pending[0].id, "--number", try #require(push.correctValue)])
            #expect(approve.status == 0, "\(approve.stderr)")
            #expect(try await sim.plusAuthAnswer(to: push.pushId).outcome == .approved)

            let unknown = try await cluster.pushctl(["enroll", "--fcm-app", "nosuch", try await sim.plusAuthEnrollURI(.init(account: "bob"))])
            #expect(unknown.status != 0 && unknown.stderr.contains("no FCM app 'nosuch'") && unknown.stderr.contains("default, tenant"),
                    "\(unknown.stderr)")
            let relay = try await cluster.pushctl(["--json", "enroll", "--fcm-app", "none", try await sim.plusAuthEnrollURI(.init(account: "carol"))])
            #expect(relay.status == 0, "\(relay.stderr)")
            #expect(try ControlJSON.decoder().decode(Account.self, from: Data(relay.stdout.utf8)).fcmApp == nil)
        }
    }

    /// A provider whose own app is Android only: its google-services.json, imported with pushctl, is an app whose
    /// `1:N:android:…` id registers as firebase-messaging's does (the same web-push requests), and its pushes arrive.
    @Test func anAndroidAppImportedFromGoogleServicesJSONRegistersAndItsPushesArrive() async throws {
        var config = ""
        try await FCMGoogleServicesImportTests.withFile(FCMGoogleServicesImportTests.googleServices) { path in
            let imported = try await FCMGoogleServicesImportTests.importFile(
                path, ["--name", "mobile", "--package", "com.example.authenticator"])
            #expect(imported.status == 0, "\(imported.stderr)")
            config = imported.stdout
        }
        try await Self.withFCMCluster(config: config) { cluster, emulator in
            try await eventually("the Android app's connection logged in") {
                try await Self.fcmState(cluster, source: "fcm:mobile") == "connected"
            }
            #expect(emulator.process.text.contains("fcm installation: app 1:123456789012:android:0a1b2c3d4e5f6789"),
                    "the installation was made for the Android app's id")
            let check = try await cluster.client.fcmCheck(app: "mobile")
            #expect(check.projectID == "example-mfa" && check.senderID == "123456789012")

            let sim = SimAdminClient(baseURL: cluster.simURL)
            let (push, pending) = try await Self.enrollAndPush(cluster, sim, app: "mobile",
                                                               message: "Sign in from the Android-only provider?")
            let approve = try await cluster.pushctl(["approve", pending.id])
            #expect(approve.status == 0, "\(approve.stderr)")
            try await eventually("AM got the answer") {
                try await sim.answers().contains { $0.messageId == push.messageId && $0.outcome == .approved && $0.verified }
            }
        }
    }

    @Test func aForgeRockPushSentThroughFCMIsApprovedAndTheAnswerReachesTheProvider() async throws {
        try await Self.withFCMCluster { cluster, emulator in
            let sim = SimAdminClient(baseURL: cluster.simURL)
            let (push, pending) = try await Self.enrollAndPush(cluster, sim, app: "default", message: "Sign in through Google?")
            #expect(pending.message == "Sign in through Google?")
            #expect(emulator.process.text.contains("fcm send:"), "it went through the emulator, not the relay")
            let approve = try await cluster.pushctl(["approve", pending.id])
            #expect(approve.status == 0, "\(approve.stderr)")
            try await eventually("AM got the answer") {
                try await sim.answers().contains { $0.messageId == push.messageId && $0.outcome == .approved && $0.verified }
            }
            try await eventually("the message was acknowledged over MCS once committed") {
                emulator.process.text.split(separator: "\n").last { $0.hasPrefix("pushsim: fcm ack:") }?
                    .hasSuffix(" 0 unacknowledged") == true
            }

            let status = try await cluster.pushctl(["status"])
            #expect(status.stdout.contains("fcm"), "\(status.stdout)")
            let check = try await cluster.pushctl(["fcm", "check"])
            #expect(check.status == 0 && check.stdout.contains("connection: connected"), "\(check.stdout)\(check.stderr)")
            let registration = try await cluster.client.fcmCheck()
            #expect(check.stdout.contains("token: \(registration.token)") && registration.projectID == FCMEmulatorProcess.projectID)
            let accounts = try await cluster.pushctl(["accounts"])
            #expect(accounts.stdout.contains("PUSHES VIA") && accounts.stdout.contains("fcm (default)"), "\(accounts.stdout)")
            let bad = try await cluster.pushctl(["enroll", "--fcm-app", "other", try await sim.enrollURI(.init(account: "bob"))])
            #expect(bad.status != 0 && bad.stderr.contains("no FCM app 'other' in pushagentd.toml (its apps: default)"),
                    "\(bad.stderr)")

            // Google forgetting the registration (an emulator started again, empty): the login is refused, the agent
            // registers anew under a new token, tells AM the new token, and the next push arrives through it.
            await emulator.stop()
            let fresh = try await emulator.restartedEmpty()
            defer { Task { await fresh.stop() } }
            try await eventually("pushagentd registered again and logged in", timeout: .seconds(30)) {
                guard fresh.process.text.contains("fcm mcs login") else { return false }
                return try await cluster.client.status().pushSources?.first { $0.name == "fcm" }?.state == "connected"
            }
            #expect(cluster.daemon?.text.contains("MCS refused this machine's registration") == true)
            try await eventually("AM was told the new FCM token") {
                try await cluster.client.accounts().allSatisfy { !$0.needsTokenUpdate }
            }
            let second = try await sim.push(.init(message: "Still reachable?"))
            try await eventually("the next push arrived through the new registration") {
                try await cluster.client.approvals(state: .pending).contains { $0.message == "Still reachable?" }
            }
            #expect(!second.messageId.isEmpty)
            await fresh.stop()
        }
    }

    /// Google restarting loses nothing it accepted (pushsim fcm serve --state): the agent logs in again with the same
    /// registration, and a message accepted while the agent was down arrives once.
    @Test func aRestartedEmulatorKeepsRegistrationsAndUnacknowledgedMessages() async throws {
        try await Self.withFCMCluster(emulatorKeepsState: true) { cluster, emulator in
            let sim = SimAdminClient(baseURL: cluster.simURL)
            #expect(try await cluster.pushctl(["enroll", "--fcm-app", "default", try await sim.enrollURI()]).status == 0)
            let token = try await cluster.client.fcmCheck().token
            cluster.daemon?.signal(SIGKILL)
            _ = try await cluster.daemon?.waitForExit()
            _ = try await sim.push(.init(message: "Sent while the agent was down"))
            emulator.process.signal(SIGKILL)
            _ = try await emulator.process.waitForExit()
            let restarted = try await emulator.restarted()
            defer { Task { await restarted.stop() } }
            try await cluster.startDaemon(extraEnvironment: restarted.daemonEnvironment)
            try await eventually("the message accepted before the restart arrived") {
                try await cluster.client.approvals(state: .pending).contains { $0.message == "Sent while the agent was down" }
            }
            #expect(try await cluster.client.fcmCheck().token == token, "the same registration, not a new one")
            #expect(!(cluster.daemon?.text.contains("MCS refused") ?? true))
            #expect(try await cluster.client.approvals().count == 1)
        }
    }

    @Test func aPlusAuthNumberChallengeSentThroughFCMIsAnsweredWithItsNumber() async throws {
        try await Self.withFCMCluster { cluster, emulator in
            let sim = SimAdminClient(baseURL: cluster.simURL)
            let enroll = try await cluster.pushctl(["enroll", "--fcm-app", "default", try await sim.plusAuthEnrollURI(.init(account: "alice"))])
            #expect(enroll.status == 0, "\(enroll.stderr)")
            let registration = try #require(try await sim.plusAuthRegistrations().first)
            #expect(registration.deviceToken != (try await cluster.client.status().pushToken), "the FCM token, not the relay's")

            let push = try await sim.plusAuthPush(.init(type: "code"))
            var pending: [Approval] = []
            try await eventually("the number challenge arrived through FCM") {
                pending = try await cluster.client.approvals(state: .pending)
                return pending.count == 1
            }
            #expect(pending[0].provider == .plusauth && pending[0].numbers == push.values)
            let approve = try await cluster.pushctl(["approve", pending[0].id, "--number", try #require(push.correctValue)])
            #expect(approve.status == 0, "\(approve.stderr)")
            let answer = try await sim.plusAuthAnswer(to: push.pushId)
            #expect(answer.outcome == .approved && answer.verified)
        }
    }

    /// Hyphen learns the push token at sign-in: the account's FCM token, so Hyphen's push comes through Google.
    @Test func aHyphenAccountOnFCMSignsInAndApprovesThroughIt() async throws {
        try await Self.withFCMCluster { cluster, emulator in
            let sim = SimAdminClient(baseURL: cluster.simURL)
            let user = try await sim.hyphenUser(.init(email: "alice@example.com", existingDevice: false))
            let enroll = try await cluster.pushctl(["--json", "enroll", "--fcm-app", "default", user.uri])
            #expect(enroll.status == 0, "\(enroll.stderr)")
            let account = try ControlJSON.decoder().decode(Account.self, from: Data(enroll.stdout.utf8))
            #expect(account.fcmApp == "default")
            let signIn = try await cluster.pushctl(["hyphen", "signin", "--account", account.id, "--credential", user.credential])
            #expect(signIn.status == 0, "\(signIn.stderr)")

            let id = try await sim.hyphenPush().id
            var pending: [Approval] = []
            try await eventually("Hyphen's push arrived through FCM") {
                pending = try await cluster.client.approvals(state: .pending)
                return pending.count == 1
            }
            #expect(pending[0].provider == .hyphen)
            let approve = try await cluster.pushctl(["approve", pending[0].id])
            #expect(approve.status == 0, "\(approve.stderr)")
            let answer = try await sim.hyphenAnswer(to: id)
            #expect(answer.outcome == .approved && answer.verified, "pushsim: \(answer.error ?? "")")
        }
    }

    @Test func fcmCheckSaysHowToTurnFCMOn() async throws {
        try await Cluster.run { cluster in
            try await cluster.startDaemon()
            let check = try await cluster.pushctl(["fcm", "check"])
            #expect(check.status != 0 && check.stderr.contains("FCM is off: set fcm_project_id"), "\(check.stderr)")
            #expect(try await cluster.client.status().pushSources?.contains { $0.name == "fcm" } == false)
        }
    }

    /// A hostile or broken MCS server (pushsim's emulator told to misbehave in its next session): each gets a clear
    /// line in the journal and a reconnect, never a crash; a message that will not decrypt is dropped with its own
    /// line and the connection stays.
    @Test(arguments: [
        ("garbage", "stanza tag 255 is not MCS"),
        ("huge_length", "a stanza of 2147483648 bytes is over the 262144-byte limit"),
        ("wrong_version", "the peer speaks MCS version 40, not 41"),
        ("undecryptable", "cannot be read"),
        ("silent", "the connection is dead"),
        ("trickle", "the connection is dead"),
    ])
    func aHostileMCSServerGetsAClearErrorAndAReconnect(mode: String, logged: String) async throws {
        try await Self.withFCMCluster(environment: ["PUSHAGENT_FCM_HEARTBEAT_SECONDS": "2"]) { cluster, emulator in
            let sim = SimAdminClient(baseURL: cluster.simURL)
            #expect(try await cluster.pushctl(["enroll", "--fcm-app", "default", try await sim.enrollURI()]).status == 0)

            let reply = try await emulator.misbehave(mode)
            #expect(reply.status == 200)
            try await eventually("pushagentd says what went wrong", timeout: .seconds(30)) {
                cluster.daemon?.text.contains(logged) == true
            }
            try await eventually("pushagentd is connected again", timeout: .seconds(30)) {
                guard emulator.process.text.components(separatedBy: "fcm mcs login").count >= 3 || mode == "undecryptable"
                else { return false }
                return try await Self.fcmState(cluster) == "connected"
            }
            _ = try await sim.push(.init(message: "After the storm"))
            try await eventually("a push still arrives") {
                try await cluster.client.approvals(state: .pending).contains { $0.message == "After the storm" }
            }
            #expect(cluster.daemon?.isRunning == true)
        }
    }

    /// A wake from suspend (logind's PrepareForSleep(false), here on a private bus standing in for the system bus)
    /// replaces the MCS connection at once, long before a missed heartbeat (60 s here) would, and the relay's long
    /// poll too.
    @Test func aWakeFromSuspendReconnectsAtOnce() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fcm-wake-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bus = try await PrivateSystemBus(directory: directory)
        defer { Task { await bus.stop() } }
        try await Self.withFCMCluster(environment: bus.environment.merging(["PUSHAGENT_FCM_HEARTBEAT_SECONDS": "60"]) { $1 }) {
            cluster, emulator in
            let logins = { emulator.process.text.components(separatedBy: "fcm mcs login").count - 1 }
            #expect(logins() == 1)
            try await bus.prepareForSleep(true)
            try await Task.sleep(for: .milliseconds(300))
            #expect(logins() == 1, "going to sleep changes nothing")
            let woke = ContinuousClock.now
            try await bus.prepareForSleep(false)
            try await eventually("pushagentd logged in again after the wake", timeout: .seconds(5)) {
                guard logins() == 2 else { return false }
                return try await Self.fcmState(cluster) == "connected"
            }
            #expect(ContinuousClock.now - woke < .seconds(3))
            #expect(cluster.daemon?.text.contains("fcm: the machine woke from suspend; connecting again now") == true)
            try await eventually("the relay's long poll was made again too") {
                cluster.daemon?.text.contains("relay: the machine woke from suspend; polling again now") == true
            }
            let sim = SimAdminClient(baseURL: cluster.simURL)
            #expect(try await cluster.pushctl(["enroll", "--fcm-app", "default", try await sim.enrollURI()]).status == 0)
            _ = try await sim.push(.init(message: "After the wake"))
            try await eventually("a push arrives on the new connection") {
                try await cluster.client.approvals(state: .pending).contains { $0.message == "After the wake" }
            }
        }
    }

    /// Behind a proxy that is the way out, as on a corporate network: Google's HTTP endpoints are reached through it
    /// (libcurl reads the proxy variables) and MCS through a CONNECT tunnel it opens, with TLS to MCS inside.
    @Test func behindAProxyMCSIsTunnelledThroughItAndPushesArrive() async throws {
        let proxy = try await TinyproxyProcess()
        defer { Task { await proxy.stop() } }
        try await Self.withFCMCluster(environment: ["HTTPS_PROXY": proxy.url, "http_proxy": proxy.url, "NO_PROXY": "",
                                                    "no_proxy": ""]) { cluster, emulator in
            #expect(proxy.requests.contains("CONNECT \(emulator.mcsHost):\(emulator.mcsPort) HTTP/1.1"), "\(proxy.requests)")
            #expect(proxy.requests.contains("POST \(emulator.httpURL)/fcm/checkin HTTP/1.1"), "\(proxy.requests)")
            let sim = SimAdminClient(baseURL: cluster.simURL)
            #expect(try await cluster.pushctl(["enroll", "--fcm-app", "default", try await sim.enrollURI()]).status == 0)
            _ = try await sim.push(.init(message: "Through the proxy"))
            try await eventually("the push arrived through the tunnel") {
                try await cluster.client.approvals(state: .pending).contains { $0.message == "Through the proxy" }
            }
        }
    }

    /// A proxy that will not tunnel to MCS's port: the status and the journal say what the proxy answered.
    @Test func aProxyThatRefusesTheTunnelIsNamedWithItsAnswer() async throws {
        let proxy = try await TinyproxyProcess(connectPorts: [443])
        defer { Task { await proxy.stop() } }
        try await Self.withFCMCluster(environment: ["HTTPS_PROXY": proxy.url, "NO_PROXY": "", "no_proxy": ""],
                                      waitForConnection: false) { cluster, _ in
            try await eventually("pushagentd says the proxy refused") {
                let fcm = try await cluster.client.status().pushSources?.first { $0.name == "fcm" }
                return fcm?.state == "backoff" && fcm?.detail?.contains("the proxy refused the tunnel: HTTP/1.") == true
                    && fcm?.detail?.contains("through the proxy 127.0.0.1:") == true
            }
            // Refused again after its backoff, and still running: the refused connection is closed cleanly (a
            // tunnel's failure once left NIO's async channel unfinished, which NIO traps on). The journal says the
            // same failure once, not at each attempt: the proxy's log counts them.
            try await eventually("pushagentd tried again") {
                proxy.requests.filter { $0.hasPrefix("CONNECT ") }.count >= 2
            }
            #expect(cluster.daemon?.text.components(separatedBy: "the proxy refused the tunnel").count == 2,
                    "\(cluster.daemon?.text ?? "")")
            #expect(cluster.daemon?.isRunning == true, "\(cluster.daemon?.text ?? "")")
        }
    }
}
