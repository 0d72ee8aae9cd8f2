import ClusterHarness
import CurlHTTP
import Foundation
import Testing

@Suite("Send API (FCM HTTP v1 subset)", .postgres)
struct SendAPITests {
    @Test func expiredMessagesAreNeverDelivered() async throws {
        try await withRelay { relay in
            let device = try await relay.register()
            #expect(try await relay.send(to: device, ["data": ["n": "short"], "android": ["ttl": "0.2s"]]).status == 200)
            // ttl 0 is "now or never": with no poll in progress it is dropped at once.
            #expect(try await relay.send(to: device, ["data": ["n": "zero"], "android": ["ttl": "0s"]]).status == 200)
            try await Task.sleep(for: .milliseconds(300))

            let polled = try await relay.poll(device).messages
            #expect(polled.isEmpty, "\(polled)")
            try await eventually("the sweep counts both, within its second") {
                try await relay.metric("pushrelay_messages_expired_total") == 2
            }
        }
    }

    @Test(arguments: TestBackend.available) func zeroTTLReachesAPollInProgress(backend: TestBackend) async throws {
        try await withRelay(on: backend) { relay in
            let device = try await relay.register()
            let poll = Task { try await relay.poll(device, query: "after=0&wait=10") }
            try await relay.waitForWaitingPolls(1)
            #expect(try await relay.send(to: device, ["data": ["n": "zero"], "android": ["ttl": "0s"]]).status == 200)
            #expect(try await poll.value.messages.map { $0.data["n"] } == ["zero"])
        }
    }

    @Test(arguments: TestBackend.available) func collapseKeyReplacesUndeliveredMessage(backend: TestBackend) async throws {
        try await withRelay(on: backend) { relay in
            let device = try await relay.register()
            _ = try await relay.send(to: device, ["data": ["n": "1"], "android": ["collapse_key": "status"]])
            _ = try await relay.send(to: device, ["data": ["n": "2"]])
            _ = try await relay.send(to: device, ["data": ["n": "3"], "android": ["collapseKey": "status"]])
            #expect(try await relay.poll(device).messages.map { $0.data["n"] } == ["2", "3"])
            #expect(try await relay.metric("pushrelay_messages_collapsed_total") == 1)
        }
    }

    @Test(arguments: TestBackend.available) func aDeviceThatDoesNotPollHasABoundedQueue(backend: TestBackend) async throws {
        try await withRelay(on: backend, maximumQueuedPerDevice: 3) { relay in
            let device = try await relay.register()
            for n in 1...3 {
                #expect(try await relay.send(to: device, ["data": ["n": "\(n)"], "android": ["collapse_key": "c\(n)"]]).status == 200)
            }
            let full = try await relay.send(to: device, ["data": ["n": "4"]])
            #expect(full.status == 429, "\(full.text)")
            #expect(try fcmErrorCode(full) == "QUOTA_EXCEEDED")
            #expect(try errorObject(full)["status"] as? String == "RESOURCE_EXHAUSTED")
            #expect(try await relay.send(to: device, ["data": ["n": "3b"], "android": ["collapse_key": "c3"]]).status == 200,
                    "a message that replaces one fits")
            let delivered = try await relay.poll(device).messages
            #expect(delivered.map { $0.data["n"] } == ["1", "2", "3b"], "the refused message changed nothing")
            _ = try await relay.poll(device, query: "after=\(try #require(delivered.last).seq)")
            #expect(try await relay.send(to: device, ["data": ["n": "5"]]).status == 200, "polling empties the queue")
        }
    }

    /// The bound counts live messages exactly, whatever the relay's own count of a device's rows says: expired
    /// messages (swept or not) leave room, and acknowledged ones free theirs.
    @Test(arguments: TestBackend.available) func theQueueBoundCountsOnlyLiveMessages(backend: TestBackend) async throws {
        try await withRelay(on: backend, maximumQueuedPerDevice: 3) { relay in
            let device = try await relay.register()
            for n in 1...3 {
                #expect(try await relay.send(to: device, ["data": ["n": "short\(n)"], "android": ["ttl": "0.2s"]]).status == 200)
            }
            try await Task.sleep(for: .milliseconds(300))
            for n in 1...3 {
                #expect(try await relay.send(to: device, ["data": ["n": "\(n)"]]).status == 200, "expired messages leave room")
            }
            #expect(try await relay.send(to: device, ["data": ["n": "4"]]).status == 429, "three live messages fill the queue")
            let delivered = try await relay.poll(device).messages
            #expect(delivered.map { $0.data["n"] } == ["1", "2", "3"])
            _ = try await relay.poll(device, query: "after=\(try #require(delivered.last).seq)")
            for n in 5...7 {
                #expect(try await relay.send(to: device, ["data": ["n": "\(n)"]]).status == 200, "acknowledged messages free their room")
            }
            #expect(try await relay.send(to: device, ["data": ["n": "8"]]).status == 429)
        }
    }

    /// Sends that arrive together are stored together (PostgreSQL's `SendBatcher`, SQLite's group commit), and still
    /// each gets its own answer: per device exactly the bound is stored, the rest refused, and what is stored is
    /// delivered in the order of its seqs.
    @Test(arguments: TestBackend.available) func concurrentSendsAreEachAnsweredAndBoundedExactly(backend: TestBackend) async throws {
        try await withRelay(on: backend, maximumQueuedPerDevice: 5) { relay in
            var devices: [TestDevice] = []
            for _ in 0..<4 { devices.append(try await relay.register()) }
            let answers = try await withThrowingTaskGroup(of: (Int, String, Int).self) { group in
                for (index, device) in devices.enumerated() {
                    for n in 0..<10 {
                        let payload = "\(index)-\(n)"
                        let collapseKey = n % 3 == 0 ? "k\(payload)" : nil
                        group.addTask {
                            let android: [String: Any] = collapseKey.map { ["collapse_key": $0] } ?? [:]
                            return (index, payload, try await relay.send(to: device, ["data": ["n": payload], "android": android]).status)
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(answers.map(\.2)) == [200, 429], "\(answers)")
            for (index, device) in devices.enumerated() {
                let stored = answers.filter { $0.0 == index && $0.2 == 200 }.map(\.1)
                #expect(stored.count == 5, "device \(index): \(answers.filter { $0.0 == index })")
                let delivered = try await relay.poll(device, query: "after=0&limit=100").messages
                #expect(Set(delivered.compactMap { $0.data["n"] }) == Set(stored))
                #expect(delivered.map(\.seq) == delivered.map(\.seq).sorted() && Set(delivered.map(\.seq)).count == delivered.count)
            }
        }
    }

    @Test func payloadIsLimitedTo4096Bytes() async throws {
        try await withRelay { relay in
            let device = try await relay.register()
            // {"data":{"k":"…"}} is 17 bytes around the value.
            let atLimit = try await relay.send(to: device, ["data": ["k": String(repeating: "x", count: 4096 - 17)]])
            #expect(atLimit.status == 200)
            let over = try await relay.send(to: device, ["data": ["k": String(repeating: "x", count: 4096 - 16)]])
            #expect(over.status == 400)
            #expect(try fcmErrorCode(over) == "INVALID_ARGUMENT")
        }
    }

    /// Issue 24: a gzipped body was refused as "Expected a JSON object", which sends its sender looking at its JSON.
    @Test func aCompressedBodyIsRefusedNamingItsEncoding() async throws {
        try await withRelay { relay in
            let device = try await relay.register()
            let body = try JSONSerialization.data(withJSONObject: ["message": ["token": device.token, "data": ["k": "v"]]])
            let send = try await relay.http(
                "POST", "/v1/projects/\(testProject)/messages:send", bearer: testSenderKey, rawBody: body,
                headers: [("Content-Type", "application/json"), ("Content-Encoding", "gzip")])
            #expect(send.status == 400)
            #expect(try fcmErrorCode(send) == "INVALID_ARGUMENT")
            #expect((try errorObject(send)["message"] as? String)?.contains("Content-Encoding: gzip") == true, "\(send.text)")
            let registration = try await relay.http(
                "POST", "/v1/devices", rawBody: Data(#"{"name": "n"}"#.utf8), headers: [("Content-Encoding", "br")])
            #expect(registration.status == 400)
            #expect((try errorObject(registration)["message"] as? String)?.contains("Content-Encoding: br") == true)
            let identity = try await relay.http(
                "POST", "/v1/projects/\(testProject)/messages:send", bearer: testSenderKey, rawBody: body,
                headers: [("Content-Type", "application/json"), ("Content-Encoding", "identity")])
            #expect(identity.status == 200, "identity is no coding")
        }
    }

    @Test func nonStringDataValueIsInvalidArgumentInFCMFormat() async throws {
        try await withRelay { relay in
            let device = try await relay.register()
            let response = try await relay.send(to: device, ["data": ["n": 1]])
            #expect(response.status == 400)
            let error = try errorObject(response)
            #expect(error["code"] as? Int == 400)
            #expect(error["status"] as? String == "INVALID_ARGUMENT")
            #expect((error["message"] as? String)?.isEmpty == false)
            let detail = try #require((error["details"] as? [[String: Any]])?.first)
            #expect(detail["@type"] as? String == "type.googleapis.com/google.firebase.fcm.v1.FcmError")
            #expect(detail["errorCode"] as? String == "INVALID_ARGUMENT")
            #expect(try await relay.metric("pushrelay_messages_sent_total") == 0)
        }
    }

    @Test func topicAndConditionAreInvalidArguments() async throws {
        try await withRelay { relay in
            let messages: [[String: Any]] = [
                ["topic": "news", "data": ["k": "v"]], ["condition": "'a' in topics", "data": ["k": "v"]],
            ]
            for message in messages {
                let response = try await relay.http(
                    "POST", "/v1/projects/\(testProject)/messages:send", bearer: testSenderKey, json: ["message": message])
                #expect(response.status == 400)
                #expect(try errorObject(response)["status"] as? String == "INVALID_ARGUMENT")
            }
        }
    }

    @Test(arguments: TestBackend.available) func unknownTokenIsUnregistered(backend: TestBackend) async throws {
        try await withRelay(on: backend) { relay in
            let response = try await relay.send(to: TestDevice(id: "x", token: "no-such-token", secret: "x"))
            #expect(response.status == 404)
            #expect(try errorObject(response)["status"] as? String == "NOT_FOUND")
            #expect(try fcmErrorCode(response) == "UNREGISTERED")
        }
    }

    @Test func senderKeyIsChecked() async throws {
        try await withRelay { relay in
            let device = try await relay.register()
            for key in [nil, "wrong-key"] {
                let response = try await relay.send(to: device, key: key)
                #expect(response.status == 401)
                #expect(try errorObject(response)["status"] as? String == "UNAUTHENTICATED")
            }
            let otherProjectsKey = try await relay.send(to: device, key: otherSenderKey)
            #expect(otherProjectsKey.status == 403)
            #expect(try errorObject(otherProjectsKey)["status"] as? String == "PERMISSION_DENIED")
            // The same key is good for its own project.
            #expect(try await relay.send(to: device, project: otherProject, key: otherSenderKey).status == 200)
            #expect(try await relay.poll(device).messages.count == 1)
        }
    }

    @Test func validateOnlyDoesNotDeliver() async throws {
        try await withRelay { relay in
            let device = try await relay.register()
            let response = try await relay.http(
                "POST", "/v1/projects/\(testProject)/messages:send", bearer: testSenderKey,
                json: ["validate_only": true, "message": ["token": device.token, "data": ["k": "v"]]])
            #expect(response.status == 200)
            #expect(try JSONDecoder().decode([String: String].self, from: response.body)["name"] == "projects/\(testProject)/messages/fake_message_id")
            #expect(try await relay.poll(device).messages.isEmpty)
        }
    }

    @Test func malformedJSONIsInvalidArgument() async throws {
        try await withRelay { relay in
            let response = try await relay.http(
                "POST", "/v1/projects/\(testProject)/messages:send", bearer: testSenderKey, rawBody: Data("{nope".utf8))
            #expect(response.status == 400)
            #expect(try fcmErrorCode(response) == "INVALID_ARGUMENT")
        }
    }
}
