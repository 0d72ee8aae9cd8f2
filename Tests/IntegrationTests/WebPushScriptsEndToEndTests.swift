import ClusterHarness
import Foundation
import Testing

/// Issue 45 item 3 with the real processes: `pushctl webpush subscribe` prints a browser's PushSubscription, PyPI's
/// pywebpush 2.5.0 sends to it through the real pushrelay (via `scripts/webpush-send.sh`, which installs it on first
/// use), and `pushctl webpush listen` prints what was sent, decrypted by pushagentd, once: acknowledged messages do
/// not come again, one sent while the daemon lies killed arrives after its restart, another uid sees none of it,
/// and a removed subscription's senders get 410.
@Suite("pushctl webpush end to end", .serialized, .timeLimit(.minutes(5)))
struct WebPushScriptsEndToEndTests {
    private static let script = Binaries.packageRoot().appendingPathComponent("scripts/webpush-send.sh").path
    private static let nobody: UInt32 = 65534

    @Test func aScriptReceivesPywebpushMessagesOnceThroughAKillUntilItRemovesTheSubscription() async throws {
        try await Cluster.run { cluster in
            try await cluster.startDaemon()
            let subscribed = try await cluster.pushctl(["webpush", "subscribe", "demo"])
            #expect(subscribed.status == 0, "\(subscribed.stderr)")
            let subscription = subscribed.stdout
            let keys = try #require(try JSONSerialization.jsonObject(with: Data(subscription.utf8)) as? [String: Any])
            #expect(keys["expirationTime"] is NSNull)

            let first = "hello from pywebpush ✓ — \(UUID())"
            #expect(try await Self.send(first, to: subscription) == 201)
            #expect(try await Self.listen(cluster).map { $0["text"] as? String } == [first], "the plaintext, byte for byte")
            #expect(try await Self.listen(cluster, wait: 1).isEmpty, "acknowledged: not printed again")

            cluster.daemon?.signal(SIGKILL)
            _ = try await cluster.daemon?.waitForExit()
            let whileDown = "sent while pushagentd lay killed"
            #expect(try await Self.send(whileDown, to: subscription) == 201)
            try await cluster.startDaemon()
            #expect(try await Self.listen(cluster).map { $0["text"] as? String } == [whileDown])
            #expect(try await Self.listen(cluster, wait: 1).isEmpty, "exactly once")

            // Another uid reaches the socket but not the subscription (root's daemon shares its socket with its group).
            chmod(cluster.socketPath, 0o666)
            let stranger = try await cluster.pushctl(["webpush", "listen", "demo", "--once", "--wait", "0"], asUID: Self.nobody)
            #expect(stranger.status != 0 && stranger.stderr.contains("no Web Push subscription named 'demo'"), "\(stranger.stderr)")
            let strangersList = try await cluster.pushctl(["webpush", "list"], asUID: Self.nobody)
            #expect(strangersList.stdout.contains("no Web Push subscriptions"), "\(strangersList.stdout)\(strangersList.stderr)")
            let list = try await cluster.pushctl(["webpush", "list", "--json"])
            #expect(list.stdout.contains("\"received\" : 2"), "\(list.stdout)")

            #expect(try await cluster.pushctl(["webpush", "remove", "demo"]).status == 0)
            #expect(try await Self.send("after removal", to: subscription) == 410)
        }
    }

    /// A listener waiting out its 30 s (as the UnifiedPush distributor always is) does not hold pushagentd's stop:
    /// SIGTERM ends the wait and the daemon exits at once (it took the rest of the wait before).
    @Test func aWaitingListenerDoesNotHoldTheDaemonsStop() async throws {
        try await Cluster.run { cluster in
            try await cluster.startDaemon()
            #expect(try await cluster.pushctl(["webpush", "subscribe", "demo"]).status == 0)
            let listener = try ManagedProcess(name: "pushctl webpush listen", executable: Binaries.path("pushctl"),
                                              arguments: ["--socket", cluster.socketPath, "webpush", "listen", "demo", "--wait", "30"])
            try await Task.sleep(for: .seconds(2))
            let stopping = ContinuousClock.now
            cluster.daemon?.signal(SIGTERM)
            let exit = try await cluster.daemon?.waitForExit(timeout: .seconds(25))
            #expect(exit?.status == 0 && exit?.signaled == false, "a clean exit: \(String(describing: exit))")
            #expect(stopping.duration(to: .now) < .seconds(10), "stopped in \(stopping.duration(to: .now)), not after the listener's wait")
            await listener.stop()
        }
    }

    /// pywebpush's answer from the push service.
    private static func send(_ plaintext: String, to subscription: String) async throws -> Int? {
        // Generous: the first run installs pywebpush from PyPI.
        let sent = try await CommandResult.run("/bin/bash", [script, "python", "send-to", subscription, plaintext])
        let result = sent.stdout.split(separator: "\n").last
            .flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        guard let result else { throw WebPushSenderFailure("webpush-send.sh send-to printed no result:\n\(sent.stdout)\n\(sent.stderr)") }
        return result["status"] as? Int
    }

    /// The lines one `pushctl webpush listen demo --once` printed.
    private static func listen(_ cluster: Cluster, wait: Int = 20) async throws -> [[String: Any]] {
        let listened = try await cluster.pushctl(["webpush", "listen", "demo", "--once", "--wait", "\(wait)"])
        guard listened.status == 0 else { throw WebPushSenderFailure("listen exited \(listened.status): \(listened.stderr)") }
        return try listened.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }
}
