import CurlHTTP
import Foundation
import Testing

@Suite("Device API", .postgres)
struct DeviceAPITests {
    @Test(arguments: TestBackend.available) func registerSendPoll(backend: TestBackend) async throws {
        try await withRelay(on: backend) { relay in
            let device = try await relay.register()
            let sending = Date()
            let sent = try await relay.send(to: device, [
                "data": ["hyphen:type": "2fa-request", "n": "1"],
                "notification": ["title": "Sign in?", "body": "from Berlin"],
                "android": ["priority": "HIGH", "ttl": "120s"],
            ])
            let answered = Date()
            #expect(sent.status == 200)
            let name = try JSONDecoder().decode([String: String].self, from: sent.body)["name"] ?? ""
            #expect(name.hasPrefix("projects/\(testProject)/messages/"))

            let poll = try await relay.poll(device)
            let message = try #require(poll.messages.first)
            #expect(poll.messages.count == 1)
            #expect(name == "projects/\(testProject)/messages/\(message.id)")
            #expect(message.data == ["hyphen:type": "2fa-request", "n": "1"])
            #expect(message.notification == ["title": "Sign in?", "body": "from Berlin"])
            #expect(message.priority == "high")
            #expect(poll.next == message.seq)
            let sentAt = try Date(message.sent_at, strategy: .iso8601)
            let expiresAt = try Date(message.expires_at, strategy: .iso8601)
            // Whole seconds, taken while the send was answered (not "now": a loaded machine may take seconds to poll).
            #expect(sentAt >= sending.addingTimeInterval(-1) && sentAt <= answered, "\(sentAt) outside \(sending)…\(answered)")
            #expect(expiresAt.timeIntervalSince(sentAt) == 120)
        }
    }

    @Test func messageWithoutNotificationOmitsIt() async throws {
        try await withRelay { relay in
            let device = try await relay.register()
            _ = try await relay.send(to: device)
            let response = try await relay.http("GET", "/v1/devices/\(device.id)/messages", bearer: device.secret)
            let object = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
            let message = try #require((object["messages"] as? [[String: Any]])?.first)
            #expect(message["notification"] == nil)
            #expect(message["priority"] as? String == "normal")
        }
    }

    @Test(arguments: TestBackend.available) func waitingPollIsWokenBySendAtOnce(backend: TestBackend) async throws {
        try await withRelay(on: backend) { relay in
            let latencies = try await wakeLatencies(sender: relay, poller: relay, device: try await relay.register())
            let best = try #require(latencies.min())
            // Alone either backend answers in a few milliseconds; inside the full parallel suite on 2 CPUs the best of
            // three has taken 0.6 s (SQLite, a clean-clone CI run), still far from the 10 s wait a poll that missed
            // its wake-up would take.
            #expect(best < .seconds(2), "poll answers after the send: \(latencies)")
        }
    }

    @Test(arguments: TestBackend.available) func afterAcknowledgesAndDeletes(backend: TestBackend) async throws {
        try await withRelay(on: backend) { relay in
            let device = try await relay.register()
            for n in 1...3 { _ = try await relay.send(to: device, ["data": ["n": "\(n)"]]) }

            let first = try await relay.poll(device, query: "after=0&limit=2")
            #expect(first.messages.map { $0.data["n"] } == ["1", "2"])
            #expect(first.next == first.messages[1].seq)

            // Polling from 0 again still returns message 1: nothing is acknowledged until `after` passes it.
            #expect(try await relay.poll(device, query: "after=0&limit=1").messages.map(\.seq) == [first.messages[0].seq])

            let second = try await relay.poll(device, query: "after=\(first.next)")
            #expect(second.messages.map { $0.data["n"] } == ["3"])
            #expect(try await relay.metric("pushrelay_messages_delivered_total") == 2)

            // Acknowledged messages are gone: a poll from 0 only sees what was not acknowledged.
            #expect(try await relay.poll(device, query: "after=0").messages.map { $0.data["n"] } == ["3"])

            let empty = try await relay.poll(device, query: "after=\(second.next)")
            #expect(empty.messages.isEmpty)
            #expect(empty.next == second.next)
            #expect(try await relay.metric("pushrelay_messages_delivered_total") == 3)
        }
    }

    /// The poll that acknowledges what the device was just handed is answered without a read on a single relay:
    /// it must answer, wait and count as the read did (issue 26).
    @Test(arguments: TestBackend.available) func acknowledgingPollsWaitAndCountAsBefore(backend: TestBackend) async throws {
        try await withRelay(on: backend) { relay in
            let device = try await relay.register()
            #expect(try await relay.poll(device, query: "after=0").messages.isEmpty)
            _ = try await relay.send(to: device, ["data": ["n": "1"]])
            let first = try #require(try await relay.poll(device, query: "after=0&wait=5").messages.first)

            async let woken = relay.poll(device, query: "after=\(first.seq)&wait=10")
            try await eventuallyValue("the acknowledging poll waits") {
                try await relay.metric("pushrelay_polls_waiting") == 1 ? true : nil
            }
            #expect(try await relay.metric("pushrelay_messages_delivered_total") == 1)
            _ = try await relay.send(to: device, ["data": ["n": "2"]])
            let second = try #require(try await woken.messages.first)
            #expect(second.data == ["n": "2"])

            let empty = try await relay.poll(device, query: "after=\(second.seq)")
            #expect(empty.messages.isEmpty)
            #expect(empty.next == second.seq)
            #expect(try await relay.metric("pushrelay_messages_delivered_total") == 2)
            #expect(try await relay.poll(device, query: "after=\(second.seq)").messages.isEmpty)
            #expect(try await relay.metric("pushrelay_messages_delivered_total") == 2, "acknowledged once, counted once")
            let ahead = try await relay.http("GET", "/v1/devices/\(device.id)/messages?after=\(second.seq + 1)", bearer: device.secret)
            #expect(ahead.status == 409)
            let stranger = try await relay.http("GET", "/v1/devices/\(device.id)/messages?after=\(second.seq)", bearer: "wrong")
            #expect(stranger.status == 401)
        }
    }

    @Test(arguments: TestBackend.available) func newerPollEndsOlderOne(backend: TestBackend) async throws {
        try await withRelay(on: backend) { relay in
            let device = try await relay.register()
            let clock = ContinuousClock()
            let start = clock.now
            let older = Task { try await relay.poll(device, query: "after=0&wait=30") }
            try await relay.waitForWaitingPolls(1)

            let newer = Task { try await relay.poll(device, query: "after=0&wait=30") }
            let olderResult = try await older.value
            #expect(olderResult.messages.isEmpty)
            #expect(olderResult.next == 0)
            #expect(clock.now - start < .seconds(15), "the older poll (30 s) ended when the newer one came")

            // The newer poll is the one a send now reaches.
            try await relay.waitForWaitingPolls(1)
            _ = try await relay.send(to: device)
            #expect(try await newer.value.messages.count == 1)
        }
    }

    @Test func waitAndLimitAreBounded() async throws {
        try await withRelay { relay in
            let device = try await relay.register()
            for query in ["wait=61", "wait=-1", "wait=abc", "limit=501", "limit=0", "after=-1", "after=x"] {
                let response = try await relay.http("GET", "/v1/devices/\(device.id)/messages?\(query)", bearer: device.secret)
                #expect(response.status == 400, "\(query)")
                #expect(try errorObject(response)["code"] as? String == "invalid_argument", "\(query)")
            }
            // The largest allowed values are accepted; a queued message makes wait=60 return at once.
            _ = try await relay.send(to: device)
            #expect(try await relay.poll(device, query: "after=0&wait=60&limit=500").messages.count == 1)
        }
    }

    @Test func deviceSecretIsRequired() async throws {
        try await withRelay { relay in
            let device = try await relay.register()
            for bearer in [nil, "wrong", device.token] {
                let response = try await relay.http("GET", "/v1/devices/\(device.id)/messages", bearer: bearer)
                #expect(response.status == 401)
                #expect(try errorObject(response)["code"] as? String == "unauthorized")
            }
            let delete = try await relay.http("DELETE", "/v1/devices/\(device.id)", bearer: "wrong")
            #expect(delete.status == 401)
        }
    }

    @Test(arguments: TestBackend.available) func unknownDeviceIsNotFound(backend: TestBackend) async throws {
        try await withRelay(on: backend) { relay in
            let response = try await relay.http("GET", "/v1/devices/nonexistent/messages", bearer: "whatever")
            #expect(response.status == 404)
            #expect(try errorObject(response)["code"] as? String == "not_found")
        }
    }

    @Test func registrationKeyIsRequiredWhenConfigured() async throws {
        try await withRelay(registrationKey: "let-me-in") { relay in
            for bearer in [nil, "wrong"] {
                let response = try await relay.http("POST", "/v1/devices", bearer: bearer, json: ["name": "x"])
                #expect(response.status == 401)
                #expect(try errorObject(response)["code"] as? String == "unauthorized")
            }
            _ = try await relay.register(registrationKey: "let-me-in")
        }
    }

    @Test func registrationRejectsMalformedBodies() async throws {
        try await withRelay { relay in
            let notJSON = try await relay.http("POST", "/v1/devices", rawBody: Data("name=x".utf8))
            #expect(notJSON.status == 400)
            let longName = try await relay.http("POST", "/v1/devices", json: ["name": String(repeating: "x", count: 201)])
            #expect(longName.status == 400)
            #expect(try errorObject(longName)["code"] as? String == "invalid_argument")
            let empty = try await relay.http("POST", "/v1/devices")
            #expect(empty.status == 201)
        }
    }

    @Test(arguments: TestBackend.available) func deletedDeviceIsUnregistered(backend: TestBackend) async throws {
        try await withRelay(on: backend) { relay in
            let device = try await relay.register()
            _ = try await relay.send(to: device)
            let cursor = try #require(try await relay.poll(device).messages.last?.seq)
            let waiting = Task { try await relay.poll(device, query: "after=\(cursor)&wait=30") }
            try await relay.waitForWaitingPolls(1)

            let delete = try await relay.http("DELETE", "/v1/devices/\(device.id)", bearer: device.secret)
            #expect(delete.status == 204)
            #expect(try await waiting.value.messages.isEmpty)

            let send = try await relay.send(to: device)
            #expect(send.status == 404)
            #expect(try fcmErrorCode(send) == "UNREGISTERED")
            let poll = try await relay.http("GET", "/v1/devices/\(device.id)/messages", bearer: device.secret)
            #expect(poll.status == 404)
            #expect(try await relay.metric("pushrelay_devices") == 0)
        }
    }

    @Test func messagesSurviveRestart() async throws {
        let directory = try makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }

        let first = try await TestRelay.start(stateDirectory: directory)
        let device = try await first.register()
        for n in 1...2 { _ = try await first.send(to: device, ["data": ["n": "\(n)"]]) }
        let acknowledged = try await first.poll(device, query: "after=0&limit=1").next
        try await first.stop()

        let second = try await TestRelay.start(stateDirectory: directory)
        let poll = try await second.poll(device, query: "after=\(acknowledged)")
        #expect(poll.messages.map { $0.data["n"] } == ["2"])
        #expect(poll.messages[0].seq > acknowledged)
        // Sequence numbers keep growing across the restart, so the device's cursor stays valid.
        _ = try await second.send(to: device, ["data": ["n": "3"]])
        #expect(try await second.poll(device, query: "after=\(poll.next)").messages.map { $0.data["n"] } == ["3"])
        try await second.stop()
    }

    @Test func stateIsPrivate() async throws {
        try await withRelay { relay in
            let directory = try FileManager.default.attributesOfItem(atPath: relay.stateDirectory)
            #expect((directory[.posixPermissions] as? Int) == 0o700)
            let database = try FileManager.default.attributesOfItem(atPath: relay.stateDirectory + "/relay.sqlite")
            #expect((database[.posixPermissions] as? Int) == 0o600)
        }
    }

    @Test func gracefulShutdownEndsWaitingPolls() async throws {
        let directory = try makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let relay = try await TestRelay.start(stateDirectory: directory)
        let device = try await relay.register()
        let poll = Task { try await relay.poll(device, query: "after=0&wait=60") }
        try await relay.waitForWaitingPolls(1)

        let clock = ContinuousClock()
        let start = clock.now
        try await relay.stop()
        // The poll would hold 60 s; ending well before proves the shutdown ended it. The bound leaves room for a
        // loaded 2-core machine (it is milliseconds when idle; 12 s once in the full parallel suite on a slow day).
        #expect(clock.now - start < .seconds(30))
        #expect(try await poll.value.messages.isEmpty)
    }

    @Test(arguments: TestBackend.available) func opsEndpoints(backend: TestBackend) async throws {
        try await withRelay(on: backend) { relay in
            let health = try await relay.http("GET", "/healthz")
            #expect(health.status == 200)
            #expect(health.text == "ok")

            _ = try await relay.register()
            let metrics = try await relay.http("GET", "/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.header("content-type")?.hasPrefix("text/plain") == true)
            for name in ["pushrelay_messages_sent_total", "pushrelay_messages_delivered_total", "pushrelay_messages_expired_total",
                         "pushrelay_devices", "pushrelay_polls_waiting"] {
                #expect(metrics.text.contains("# TYPE \(name) "), "\(name)")
            }
            // Once red on PostgreSQL in a full parallel run, not reproduced alone: the value says which way.
            let devices = try await relay.metric("pushrelay_devices")
            #expect(devices == 1, "pushrelay_devices: \(devices.map { "\($0)" } ?? "absent (the count failed)")")
        }
    }
}
