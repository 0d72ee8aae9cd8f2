import ClusterHarness
import CurlHTTP
import Foundation
import Testing

/// The real pushrelay as a Web Push service for two PyPI senders nobody here wrote, pywebpush 2.5.0 and webpush
/// 1.0.6 (through `scripts/webpush-send.sh`, which installs them into `.cache/webpush-senders` on first use, about
/// 30 s): each encrypts for a subscriber key pair (RFC 8291), signs VAPID (RFC 8292) where asked, and posts to an
/// endpoint the relay issued; the device's poll must carry the body byte for byte, and it must decrypt.
///
/// The relay listens on port 80 of a random 127.x.y.z address with that as its public URL: the webpush library
/// writes VAPID's `aud` as scheme and host without the port, which matches the origin only on the default port (as
/// on a real relay behind https://). Binding port 80 takes root. Serialized: one Python process at a time.
@Suite("Web Push senders from PyPI", .serialized, .enabled(if: getuid() == 0, "the relay binds port 80, which takes root"))
struct WebPushSendersTests {
    private static let script = Binaries.packageRoot().appendingPathComponent("scripts/webpush-send.sh").path

    @Test(arguments: ["pywebpush", "webpush"])
    func aSenderWithVAPIDReachesARestrictedSubscription(library: String) async throws {
        try await withRelay { relay in
            let device = try await relay.register()
            let keyFile = relay.directory + "/vapid.pem"
            let key = try #require(try await Self.python(["vapid-key", keyFile])["application_server_key"] as? String)
            let subscription = try await relay.subscribe(device, body: ["application_server_key": key])
            try await Self.sendAndCheck(library: library, plaintext: "restricted to \(library)'s key",
                                        to: subscription, device: device, relay: relay, vapidKeyFile: keyFile)
        }
    }

    @Test func pywebpushWithoutVAPIDReachesAnOpenSubscription() async throws {
        try await withRelay { relay in
            let device = try await relay.register()
            let subscription = try await relay.subscribe(device, body: [:])
            try await Self.sendAndCheck(library: "pywebpush", plaintext: "no VAPID", to: subscription, device: device,
                                        relay: relay, vapidKeyFile: nil)
        }
    }

    private static func sendAndCheck(library: String, plaintext: String, to endpoint: String, device: Relay.Device,
                                     relay: Relay, vapidKeyFile: String?) async throws {
        let sent = try await python(["send", library, endpoint, plaintext] + (vapidKeyFile.map { [$0] } ?? []))
        #expect(sent["status"] as? Int == 201, "\(sent)")
        let body = try #require(sent["body"] as? String)
        let messages = try await relay.poll(device)
        #expect(messages.count == 1)
        let message = try #require(messages.first)
        #expect(message.data["webpush.body"] == body, "the encrypted body byte for byte")
        #expect(sent["location"] as? String == "/push/message/\(message.id)")
        let decrypted = try await run(["decrypt", body, try #require(sent["receiver"] as? String), try #require(sent["auth"] as? String)])
        #expect(decrypted == plaintext)
    }

    /// The script's last JSON line; what else it printed (pip, a traceback) is in the failure.
    private static func python(_ arguments: [String]) async throws -> [String: Any] {
        let output = try await run(arguments)
        let result = output.split(separator: "\n").reversed().lazy
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }.first
        guard let result else { throw WebPushSenderFailure("webpush-send.sh \(arguments.first ?? "") printed no result:\n\(output)") }
        return result
    }

    private static func run(_ arguments: [String]) async throws -> String {
        let process = try ManagedProcess(name: "webpush-send.sh", executable: "/bin/bash", arguments: [script, "python"] + arguments)
        // Generous: the first run installs both libraries from PyPI.
        let ended = try await process.waitForExit(timeout: .seconds(600))
        guard ended.status == 0 else { throw WebPushSenderFailure("webpush-send.sh exited \(ended.status):\n\(process.text)") }
        return process.text
    }

    /// pushrelay on port 80 of its own loopback address, in a temporary directory.
    final class Relay: Sendable {
        let directory: String
        let process: ManagedProcess
        let baseURL: String

        struct Device: Decodable, Sendable {
            let device_id: String
            let secret: String
        }

        struct Message: Decodable, Sendable {
            let id: String
            let data: [String: String]
        }

        init() async throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushrelay-webpush-\(UUID().uuidString.prefix(8))").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let address = "127.\(Int.random(in: 1...254)).\(Int.random(in: 1...254)).\(Int.random(in: 1...254))"
            baseURL = "http://\(address)"
            process = try ManagedProcess(name: "pushrelay", executable: Binaries.path("pushrelay"), arguments: [
                "--listen", "\(address):80", "--state-dir", directory + "/state", "--public-url", baseURL, "--config", "/dev/null"])
            _ = try await process.waitForLine(startingWith: "pushrelay listening on ")
        }

        func stop() async {
            await process.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }

        func register() async throws -> Device {
            try JSONDecoder().decode(Device.self, from: try await request("POST", "/v1/devices", expect: 201).body)
        }

        /// The new subscription's endpoint.
        func subscribe(_ device: Device, body: [String: String]) async throws -> String {
            let created = try await request("POST", "/v1/devices/\(device.device_id)/webpush", bearer: device.secret,
                                            body: try JSONSerialization.data(withJSONObject: body), expect: 201)
            return try #require(try JSONDecoder().decode([String: String].self, from: created.body)["endpoint"])
        }

        func poll(_ device: Device) async throws -> [Message] {
            struct Poll: Decodable { let messages: [Message] }
            let polled = try await request("GET", "/v1/devices/\(device.device_id)/messages?after=0", bearer: device.secret, expect: 200)
            return try JSONDecoder().decode(Poll.self, from: polled.body).messages
        }

        private func request(_ method: String, _ path: String, bearer: String? = nil, body: Data? = nil,
                             expect status: Int) async throws -> HTTPResponse {
            let headers = bearer.map { [(name: "Authorization", value: "Bearer \($0)")] } ?? []
            let response = try await CurlHTTPClient.shared.send(
                HTTPRequest(method: method, url: baseURL + path, headers: headers, body: body, timeout: .seconds(30)))
            guard response.status == status else {
                throw WebPushSenderFailure("\(method) \(path): \(response.status) \(response.text)")
            }
            return response
        }
    }

    /// Runs `body` with a new relay, always stopped afterwards; a failure carries the relay's output.
    private func withRelay(_ body: (Relay) async throws -> Void) async throws {
        let relay = try await Relay()
        let failure: (any Error)?
        do { try await body(relay); failure = nil } catch { failure = error }
        await relay.stop()
        if let failure { throw WebPushSenderFailure("\(failure)\n\npushrelay's output:\n\(relay.process.text)") }
    }
}

struct WebPushSenderFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
