import ClusterHarness
import Foundation
import Testing

/// Issue 45 item 2 with every part real: pushrelay, pushagentd, `pushctl webpush distributor` on a private session
/// bus, an app written from the UnifiedPush D-Bus specification (scripts/unifiedpush-connector.sh, dbus-fast from
/// PyPI, D-Bus-activatable through its service file) and PyPI's pywebpush 2.5.0 as the app's server. The app
/// registers (Distributor2, with its server's VAPID key; Distributor1 without), gets its endpoint through NewEndpoint,
/// and receives each message byte for byte, once, in order: started by the bus when it is not running, after the
/// distributor and pushagentd were killed with SIGKILL, and after it was uninstalled for a while; Unregister makes
/// its server's next send 410.
@Suite("UnifiedPush distributor end to end", .serialized, .timeLimit(.minutes(6)),
       .enabled(if: sessionBusAvailable, "needs Debian's dbus-daemon and dbus-send"))
struct UnifiedPushEndToEndTests {
    private static let sender = Binaries.packageRoot().appendingPathComponent("scripts/webpush-send.sh").path
    private static let app = "org.example.ChatApp"

    @Test func anAppGetsEveryMessageOnceThroughActivationKillsAndAbsenceUntilItUnregisters() async throws {
        try await Cluster.run { cluster in
            try await cluster.startDaemon()
            try await withSessionBus { session in
                try await UnifiedPushConnector.install()
                var distributor = try await Self.startDistributor(cluster, session)
                let log = session.directory + "/chat.jsonl"
                try session.installConnector(Self.app, log: log)
                let keyFile = cluster.directory + "/vapid.pem"
                let vapid = try #require(try await Self.python(["vapid-key", keyFile])["application_server_key"] as? String)
                let token = "chat-\(UUID().uuidString)"

                // The register process owns the app's name until NewEndpoint comes, then exits: the app is not running.
                let registered = try await UnifiedPushConnector.register(
                    Self.app, token: token, version: 2, on: session, extra: ["--vapid", vapid, "--wait-endpoint", "60", "--log", log])
                #expect(registered.success == "REGISTRATION_SUCCEEDED", "\(registered)")
                let endpoint = try #require(registered.endpoint)
                let listed = try await cluster.pushctl(["webpush", "list"])
                #expect(listed.stdout.contains(Self.app), "\(listed.stdout)\(listed.stderr)")
                let again = try await UnifiedPushConnector.register(
                    Self.app, token: token, version: 2, on: session, extra: ["--vapid", vapid, "--wait-endpoint", "60", "--log", log])
                #expect(again.endpoint == endpoint, "the same token is the same registration")

                var sent: [Sent] = []
                sent.append(try await Self.send("started by the bus", to: endpoint, vapid: keyFile))
                try await Self.expectDelivered(sent, log: log, what: "the bus starts the app for the first message")

                distributor.signal(SIGKILL)
                _ = try await distributor.waitForExit()
                sent.append(try await Self.send("sent while the distributor lay killed", to: endpoint, vapid: keyFile))
                distributor = try await Self.startDistributor(cluster, session)
                try await Self.expectDelivered(sent, log: log, what: "a restarted distributor delivers what waited")

                cluster.daemon?.signal(SIGKILL)
                _ = try await cluster.daemon?.waitForExit()
                sent.append(try await Self.send("sent while pushagentd lay killed", to: endpoint, vapid: keyFile))
                try await cluster.startDaemon()
                try await Self.expectDelivered(sent, log: log, what: "a restarted pushagentd's messages reach the app")

                // Uninstalled and not running: the messages wait in pushagentd, in order, until it is back.
                try await Self.stopApp(on: session)
                try FileManager.default.removeItem(atPath: "\(session.serviceDirectory)/\(Self.app).service")
                for text in ["while uninstalled, first", "while uninstalled, second"] {
                    sent.append(try await Self.send(text, to: endpoint, vapid: keyFile))
                }
                try await eventually("pushagentd holds both") {
                    try await cluster.client.webPushSubscriptions().subscriptions.first?.undelivered == 2
                }
                try await Task.sleep(for: .seconds(2))
                #expect(Self.messages(log).count == sent.count - 2, "nothing is handed to an app that is not there")
                try session.installConnector(Self.app, log: log)
                try await Self.expectDelivered(sent, log: log, what: "a reinstalled app gets what waited, in order", timeout: .seconds(60))

                let unregistered = try await UnifiedPushConnector.run(
                    ["unregister", "--distributor", testDistributor, "--token", token, "--version", "2"], on: session)
                #expect(unregistered.unregistered == true, "\(unregistered)")
                try await eventually("the app is told it is unregistered") {
                    UnifiedPushConnector.loggedCalls(log).contains { $0.method == "Unregistered" && $0.token == token }
                }
                try await eventually("its server gets 410") {
                    try await Self.send("after unregistering", to: endpoint, vapid: keyFile, expecting: nil).status == 410
                }
                await distributor.stop()
            }
        }
    }

    @Test func aDistributor1AppWithoutVAPIDReceivesThroughConnector1() async throws {
        try await Cluster.run { cluster in
            try await cluster.startDaemon()
            try await withSessionBus { session in
                try await UnifiedPushConnector.install()
                let distributor = try await Self.startDistributor(cluster, session)
                let log = session.directory + "/v1.jsonl"
                let app = try await UnifiedPushConnector.serve([Self.app], log: log, on: session)
                let registered = try await UnifiedPushConnector.register(Self.app, token: "v1-token", version: 1, on: session)
                #expect(registered.success == "REGISTRATION_SUCCEEDED", "\(registered)")
                try await eventually("NewEndpoint reaches the app on Connector1") {
                    UnifiedPushConnector.loggedCalls(log).contains { $0.method == "NewEndpoint" && $0.interface == "org.unifiedpush.Connector1" }
                }
                let endpoint = try #require(UnifiedPushConnector.loggedCalls(log).first { $0.method == "NewEndpoint" }?.endpoint)
                let sent = [try await Self.send("to a Connector1 app", to: endpoint, vapid: nil)]
                try await Self.expectDelivered(sent, log: log, what: "Connector1.Message carries it")
                #expect(Self.messages(log).first?.interface == "org.unifiedpush.Connector1")
                await app.stop()
                await distributor.stop()
            }
        }
    }

    /// The relay loses its state (a new machine, a wiped disk): pushagentd registers anew, the app's old endpoint
    /// is gone, and the distributor has pushagentd make it again and tells the app its new endpoint through
    /// NewEndpoint; what the app's server sends there arrives.
    @Test func anEndpointTheRelayForgotIsMadeAgainAndTheAppToldIt() async throws {
        try await Cluster.run { cluster in
            try await cluster.startDaemon()
            try await withSessionBus { session in
                try await UnifiedPushConnector.install()
                let distributor = try await Self.startDistributor(cluster, session, checkEvery: 1)
                let log = session.directory + "/renewed.jsonl"
                let app = try await UnifiedPushConnector.serve([Self.app], log: log, on: session)
                #expect(try await UnifiedPushConnector.register(Self.app, token: "renew-token", version: 2, on: session).success
                        == "REGISTRATION_SUCCEEDED")
                let endpoints = { UnifiedPushConnector.loggedCalls(log).filter { $0.method == "NewEndpoint" }.compactMap(\.endpoint) }
                try await eventually("the first endpoint") { endpoints().count == 1 }
                let first = try #require(endpoints().first)

                let port = try #require(URL(string: cluster.relayURL)?.port)
                await cluster.relay?.stop()
                try FileManager.default.removeItem(atPath: cluster.directory + "/relay")
                try await cluster.startRelay(port: port)
                try await eventually("the app is told a new endpoint", timeout: .seconds(60)) {
                    endpoints().count >= 2 && endpoints().last != first
                }
                let renewed = try #require(endpoints().last)
                let listed = try await cluster.client.webPushSubscriptions().subscriptions
                #expect(listed.map(\.endpoint) == [renewed] && listed.map(\.stale) == [false])
                let sent = [try await Self.send("to the endpoint made again", to: renewed, vapid: nil)]
                try await Self.expectDelivered(sent, log: log, what: "the new endpoint reaches the app")
                await app.stop()
                await distributor.stop()
            }
        }
    }

    // MARK: - Parts

    struct Sent {
        var status: Int
        var plaintext: String
        /// The body pywebpush posted, base64url, and the subscriber keys it encrypted for.
        var body: String
        var receiver: String
        var auth: String
    }

    private static func startDistributor(_ cluster: Cluster, _ session: PrivateSessionBus, checkEvery: Int = 60) async throws
        -> ManagedProcess {
        let process = try ManagedProcess(name: "pushctl webpush distributor", executable: Binaries.path("pushctl"),
                                         arguments: ["webpush", "distributor", "--socket", cluster.socketPath,
                                                     "--check-every", "\(checkEvery)"],
                                         environment: session.environment)
        _ = try await process.waitForLine(startingWith: "pushctl webpush distributor: serving")
        return process
    }

    /// pywebpush encrypts `plaintext` for subscriber keys of its own and posts it (TTL 60), signed with the VAPID key
    /// in `vapid` when given.
    private static func send(_ plaintext: String, to endpoint: String, vapid: String?, expecting status: Int? = 201) async throws -> Sent {
        let result = try await python(["send", "pywebpush", endpoint, plaintext] + (vapid.map { [$0] } ?? []))
        let sent = Sent(status: result["status"] as? Int ?? 0, plaintext: plaintext, body: result["body"] as? String ?? "",
                        receiver: result["receiver"] as? String ?? "", auth: result["auth"] as? String ?? "")
        if let status, sent.status != status { throw HarnessError("pywebpush got \(sent.status), not \(status): \(result)") }
        return sent
    }

    /// Every message sent so far reached the app once, in order, byte for byte, and http_ece decrypts the last.
    private static func expectDelivered(_ sent: [Sent], log: String, what: String, timeout: Duration = .seconds(30)) async throws {
        try await eventually(what, timeout: timeout) { messages(log).count >= sent.count }
        let received = messages(log)
        #expect(received.count == sent.count, "each message once: \(received.map(\.id))")
        #expect(received.map(\.body) == sent.map { base64URL($0.body) }, "in order, byte for byte")
        #expect(Set(received.compactMap(\.id)).count == received.count, "each with its own relay message id")
        if let last = sent.last {
            let decrypted = try await CommandResult.run("/bin/bash", [sender, "python", "decrypt", last.body, last.receiver, last.auth])
            #expect(decrypted.stdout == last.plaintext, "http_ece decrypts what the app got")
        }
    }

    private static func messages(_ log: String) -> [UnifiedPushConnector.LoggedCall] {
        UnifiedPushConnector.loggedCalls(log).filter { $0.method == "Message" }
    }

    private static func base64URL(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    /// SIGTERM to the process that owns the app's name (the connector the bus started).
    private static func stopApp(on session: PrivateSessionBus) async throws {
        let owner = try await CommandResult.run("/usr/bin/dbus-send", [
            "--bus=\(session.address)", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
            "org.freedesktop.DBus.GetConnectionUnixProcessID", "string:\(app)"])
        guard let pid = owner.stdout.split(whereSeparator: \.isWhitespace).last.flatMap({ Int32($0) }) else {
            throw HarnessError("no process owns \(app): \(owner.stdout)\(owner.stderr)")
        }
        kill(pid, SIGTERM)
        try await eventually("the app has left the bus") {
            let check = try await CommandResult.run("/usr/bin/dbus-send", [
                "--bus=\(session.address)", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                "org.freedesktop.DBus.NameHasOwner", "string:\(app)"])
            return check.stdout.contains("boolean false")
        }
    }

    private static func python(_ arguments: [String]) async throws -> [String: Any] {
        let ran = try await CommandResult.run("/bin/bash", [sender, "python"] + arguments)
        guard let line = ran.stdout.split(separator: "\n").last,
              let result = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw HarnessError("webpush-send.sh \(arguments.first ?? "") printed no result (exit \(ran.status)):\n\(ran.stdout)\(ran.stderr)")
        }
        return result
    }
}
