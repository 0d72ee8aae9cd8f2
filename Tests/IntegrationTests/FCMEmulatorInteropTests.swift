import ClusterHarness
import Foundation
import Testing

/// pushsim's FCM emulator against a client nobody here wrote: PyPI firebase-messaging 0.4.4
/// (`scripts/fcm-receiver.sh`), which checks in, registers with GCM, Firebase Installations and FCM, logs in to MCS
/// over TLS, decrypts each data message (aesgcm) and acknowledges it. What the emulator's send API takes must reach
/// it exactly, and what was sent while it was down must reach it once it is back, once.
/// The first run on a machine installs the package into `.cache/firebase-messaging` (about 30 s).
@Suite("FCM emulator interop", .serialized)
struct FCMEmulatorInteropTests {
    private static let script = Binaries.packageRoot().appendingPathComponent("scripts/fcm-receiver.sh").path

    static func withEmulator(_ body: (FCMEmulatorProcess, String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fcm-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let emulator = try await FCMEmulatorProcess(directory: directory)
        defer { Task { await emulator.stop() } }
        try await body(emulator, directory)
        await emulator.stop()
    }

    func startReceiver(_ emulator: FCMEmulatorProcess, state: String) throws -> ManagedProcess {
        try ManagedProcess(name: "firebase-messaging", executable: Self.script,
                           arguments: [emulator.httpURL, emulator.mcsHost, "\(emulator.mcsPort)", state],
                           environment: ["SSL_CERT_FILE": emulator.certificate])
    }

    /// The receiver's JSON lines of one event type.
    func events(_ receiver: ManagedProcess, _ type: String) -> [[String: Any]] {
        receiver.text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["event"] as? String == type }
    }

    func messages(_ receiver: ManagedProcess, count: Int) async throws -> [[String: String]] {
        try await eventually("firebase-messaging printed \(count) message(s)", timeout: .seconds(30)) {
            events(receiver, "message").count >= count
        }
        return events(receiver, "message").compactMap { ($0["message"] as? [String: Any])?["data"] as? [String: String] }
    }

    @Test func firebaseMessagingRegistersReceivesAndGetsWhatWasSentWhileAway() async throws {
        try await Self.withEmulator { emulator, directory in
            let state = directory + "/receiver-state.json"
            let receiver = try startReceiver(emulator, state: state)
            let registered = try await receiver.waitForLine(startingWith: "{\"event\": \"registered\"", timeout: .seconds(120))
            let token = try #require(events(receiver, "registered").first?["fcm_token"] as? String, "\(registered)")
            try await eventually("the receiver logged in to MCS") { emulator.process.text.contains("fcm mcs login") }

            let sent = [["messageId": "AUTHENTICATE:1", "note": "first"], ["messageId": "AUTHENTICATE:2", "note": "ünïcode ✓"]]
            for data in sent {
                let reply = try await emulator.send(data, to: token)
                #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
            }
            #expect(try await messages(receiver, count: 2) == sent)
            try await eventually("both acknowledged over MCS") {
                emulator.process.text.split(separator: "\n").last { $0.hasPrefix("pushsim: fcm ack:") }?
                    .hasSuffix(" 0 unacknowledged") == true
            }
            await receiver.stop()

            let whileAway = ["messageId": "AUTHENTICATE:3", "note": "sent while the receiver was down"]
            #expect(try await emulator.send(whileAway, to: token).status == 200)
            let again = try startReceiver(emulator, state: state)
            #expect(try await messages(again, count: 1) == [whileAway], "only what it had not received")
            #expect(events(again, "registered").first?["fcm_token"] as? String == token, "the same registration")
            try await Task.sleep(for: .seconds(1))
            #expect(events(again, "message").count == 1, "nothing delivered twice")
            await again.stop()

            let unknown = try await emulator.send(["x": "y"], to: "no-such-token")
            #expect(unknown.status == 404 && String(decoding: unknown.body, as: UTF8.self).contains("UNREGISTERED"))
        }
    }
}
