import ClusterHarness
import Foundation
import Testing

/// The real firebase-admin Python SDK (7.7.0, from PyPI, through `scripts/firebase-admin-send.sh`) sending through
/// the relay: google-auth signs the assertion with a service-account file whose `token_uri` is the relay's
/// `/token` (and, as always, Google's token URL as `aud`), and firebase-admin sends with the token it got.
/// The first run on a machine installs the package into `.cache/firebase-admin` (about 30 s).
/// Serialized: one Python process at a time.
@Suite("firebase-admin interop", .serialized)
struct FirebaseAdminInteropTests {
    private static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/firebase-admin-send.sh").path

    @Test func firebaseAdminSendsWithAServiceAccountFile() async throws {
        try await withRelay(serviceAccountKeys: [TestServiceAccount.main.registration()]) { relay in
            let device = try await relay.register()
            let file = try serviceAccountFile(TestServiceAccount.main, relay: relay)
            defer { try? FileManager.default.removeItem(atPath: file) }

            let sent = try await firebaseAdminSend(file, relay: relay, deviceToken: device.token)
            let name = try #require(sent["name"] as? String, "\(sent)")
            #expect(name.hasPrefix("projects/\(testProject)/messages/"))
            let lifetime = try #require(sent["token_lifetime"] as? Int)
            #expect((3000...3600).contains(lifetime), "google-auth read expires_in as \(lifetime) s")
            let delivered = try await relay.poll(device).messages
            #expect(delivered.map(\.data) == [["sender": "firebase-admin"]])
            #expect(delivered.first.map { name.hasSuffix($0.id) } == true)

            // FCM's error shape is what firebase-admin maps to its exception classes.
            let unknown = try await firebaseAdminSend(file, relay: relay, deviceToken: "no-such-device-token")
            #expect(unknown["error"] as? String == "UnregisteredError", "\(unknown)")
            #expect(try await relay.metric("pushrelay_access_tokens_issued_total") == 2)
        }
    }

    /// Before, the relay refused what firebase-admin encodes for `AndroidConfig(priority='high')`: lower case.
    @Test func firebaseAdminsPlatformConfigsAreAccepted() async throws {
        try await withRelay(serviceAccountKeys: [TestServiceAccount.main.registration()]) { relay in
            let device = try await relay.register()
            let file = try serviceAccountFile(TestServiceAccount.main, relay: relay)
            defer { try? FileManager.default.removeItem(atPath: file) }

            let sent = try await firebaseAdminSend(file, relay: relay, deviceToken: device.token, kind: "every-platform")
            #expect((sent["name"] as? String)?.hasPrefix("projects/\(testProject)/messages/") == true, "\(sent)")
            let delivered = try #require(try await relay.poll(device).messages.first)
            #expect(delivered.data == ["sender": "firebase-admin", "via": "android"], "android.data overrides data")
            #expect(delivered.priority == "high")
            #expect(delivered.notification == ["title": "Sign in?", "body": "Approve the sign-in", "image": "https://example.com/i.png"])
            let sentAt = try Date(delivered.sent_at, strategy: .iso8601), expiresAt = try Date(delivered.expires_at, strategy: .iso8601)
            #expect((90...91).contains(expiresAt.timeIntervalSince(sentAt)), "android.ttl 90.5 s: \(delivered)")
        }
    }

    @Test func unregisteredKeyIsRefusedAsGoogleWould() async throws {
        try await withRelay(serviceAccountKeys: [TestServiceAccount.main.registration()]) { relay in
            let device = try await relay.register()
            let file = try serviceAccountFile(TestServiceAccount.second, relay: relay)
            defer { try? FileManager.default.removeItem(atPath: file) }

            let refused = try await firebaseAdminSend(file, relay: relay, deviceToken: device.token)
            #expect(refused["error"] as? String == "RefreshError", "\(refused)")
            #expect((refused["message"] as? String)?.contains("invalid_grant: Invalid JWT Signature") == true, "\(refused)")
            #expect(try await relay.poll(device).messages.isEmpty)
        }
    }

    /// A service-account key file as the Google Cloud console downloads it, with `token_uri` pointing at the relay.
    private func serviceAccountFile(_ account: TestServiceAccount, relay: TestRelay) throws -> String {
        let json: [String: String] = [
            "type": "service_account", "project_id": testProject, "private_key_id": "0123456789abcdef0123456789abcdef01234567",
            "private_key": account.privateKey.pkcs8PEMRepresentation, "client_email": account.email,
            "client_id": "100000000000000000001", "token_uri": relay.baseURL + "/token",
        ]
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("service-account-\(UUID().uuidString).json").path
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Runs the script and returns its one JSON line; what else it printed (pip, Python warnings) is shown when that
    /// fails.
    private func firebaseAdminSend(_ serviceAccountFile: String, relay: TestRelay, deviceToken: String,
                                   kind: String = "minimal") async throws -> [String: Any] {
        let process = try ManagedProcess(name: "firebase-admin-send.sh", executable: "/bin/bash",
                                         arguments: [Self.script, serviceAccountFile, relay.baseURL, deviceToken, kind])
        // Generous: the first run installs firebase-admin from PyPI.
        let ended = try await process.waitForExit(timeout: .seconds(600))
        let result = process.text.split(separator: "\n").reversed().lazy
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }.first
        guard let result else { throw TestFailure("firebase-admin-send.sh exited \(ended.status) without a result:\n\(process.text)") }
        return result
    }
}
