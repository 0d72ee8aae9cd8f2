import ClusterHarness
import CurlHTTP
import Foundation
import PushAgentCore
import PushSim
import Testing

/// pushsim's Guardian role against Core's device-side requests (the agent's own builders), through a real relay:
/// enroll, push, resolve (and refusals), push-token change and unenroll. No pushagentd: the test is the device.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct GuardianSimRoutesTests {
    /// A relay device: its token goes to Guardian, its secret reads the pushes.
    struct RelayDevice: Decodable {
        let id: String
        let token: String
        let secret: String

        private enum CodingKeys: String, CodingKey { case id = "device_id", token, secret }
    }

    struct Messages: Decodable {
        struct Message: Decodable { let data: [String: String] }
        let messages: [Message]
        let next: Int
    }

    static func send(_ request: OutboundRequest) async throws -> HTTPResponse {
        try await CurlHTTPClient.shared.send(HTTPRequest(
            method: request.method, url: request.url, headers: request.headers.map { ($0.name, $0.value) },
            body: request.body.isEmpty ? nil : request.body))
    }

    static func errorCode(_ response: HTTPResponse) -> String? {
        (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any])?["errorCode"] as? String
    }

    /// Enrolls a fresh key at a fresh ticket with the relay device's token.
    static func enroll(_ sim: SimAdminClient, token: String) async throws
        -> (GuardianCredentials, SimAdminAPI.Guardian.EnrollURIResponse, OutboundRequest) {
        let issued = try await sim.guardianEnrollURI(.init(account: "alice"))
        let uri = try GuardianEnrollmentURI.parse(issued.uri)
        let key = try GuardianDeviceKey.generate()
        let request = try GuardianEnrollment.request(uri: uri, key: key, deviceIdentifier: "ident-\(UUID())",
                                                     deviceName: "test machine", pushToken: token)
        let reply = try await send(request)
        #expect(reply.status == 200, "\(reply.text)")
        let credentials = try GuardianEnrollment.credentials(reply: reply.body, uri: uri, key: key,
                                                             deviceIdentifier: try #require(request.jsonIdentifier))
        return (credentials, issued, request)
    }

    static func nextPush(_ cluster: Cluster, _ device: RelayDevice, after: inout Int) async throws -> [String: String] {
        let reply = try await CurlHTTPClient.shared.send(HTTPRequest(
            url: cluster.relayURL + "/v1/devices/\(device.id)/messages?after=\(after)&wait=10",
            headers: [("Authorization", "Bearer \(device.secret)")], timeout: .seconds(20)))
        let messages = try JSONDecoder().decode(Messages.self, from: reply.body)
        after = messages.next
        return try #require(messages.messages.last?.data, "a push arrived")
    }

    @Test func enrollPushResolveChangeTokenUnenroll() async throws {
        try await Cluster.run { cluster in
            let sim = SimAdminClient(baseURL: cluster.simURL)
            let relayReply = try await CurlHTTPClient.shared.send(HTTPRequest(method: "POST", url: cluster.relayURL + "/v1/devices"))
            let device = try JSONDecoder().decode(RelayDevice.self, from: relayReply.body)

            let (credentials, issued, enrollRequest) = try await Self.enroll(sim, token: device.token)
            #expect(credentials.enrollmentId == issued.deviceId && credentials.userId.hasPrefix("auth0|"))
            #expect(credentials.apiBaseURL == cluster.simURL + "/appliance-mfa", "a loopback base_url gets /appliance-mfa")
            #expect(credentials.totp != nil, "the reply carries the tenant's TOTP")
            let reused = try await Self.send(enrollRequest)
            #expect(reused.status == 401 && Self.errorCode(reused) == "enrollment_transaction_not_found", "one use a ticket")
            var noTicket = enrollRequest
            noTicket.headers = noTicket.headers.filter { $0.name != "Authorization" }
            noTicket.body = Data("{}".utf8)
            let unauthorized = try await Self.send(noTicket)
            #expect(unauthorized.status == 401 && Self.errorCode(unauthorized) == "invalid_bearer_format",
                    "the credential is checked before the body")

            // A push, denied as fraud: settled once; a second resolve is refused and recorded.
            var cursor = 0
            let push = try await sim.guardianPush(.init())
            let data = try await Self.nextPush(cluster, device, after: &cursor)
            #expect(data == push.data && data["dai"] == credentials.enrollmentId)
            let notification = try GuardianPush.decode(data, receivedAt: Date())
            let deny = try await GuardianAnswer.request(notification: notification, credentials: credentials,
                                                        decision: .deny(reason: .fraud), at: Date())
            #expect(try await Self.send(deny).status == 204)
            let again = try await Self.send(deny)
            #expect(again.status == 401 && Self.errorCode(again) == "login_transaction_not_found")
            let denied = try await sim.guardianTransaction(push.transactionId)
            #expect(denied.state == .rejected && denied.reason == "fraud" && denied.verified)
            #expect(denied.resolutions.map(\.status) == [204, 401])

            // An answer for another challenge is refused and leaves the transaction pending; the right one settles it.
            let second = try await sim.guardianPush(.init(hostname: "evil.example"))
            var wrong = try GuardianPush.decode(try await Self.nextPush(cluster, device, after: &cursor), receivedAt: Date())
            #expect(wrong.hostname == "evil.example")
            wrong.challenge = "not-the-challenge"
            let refused = try await Self.send(try await GuardianAnswer.request(
                notification: wrong, credentials: credentials, decision: .approve(number: nil), at: Date()))
            #expect(refused.status == 400 && refused.text.contains("sub"), "\(refused.text)")
            #expect(try await sim.guardianTransaction(second.transactionId).state == .pending)
            var right = wrong
            right.challenge = second.challenge
            let approve = try await GuardianAnswer.request(notification: right, credentials: credentials,
                                                           decision: .approve(number: nil), at: Date())
            #expect(try await Self.send(approve).status == 204)
            let approved = try await sim.guardianTransaction(second.transactionId, wait: 5)
            #expect(approved.state == .accepted && approved.verified && approved.reason == nil)

            // A replay resends the same map; a push naming an unknown device cannot be resolved.
            _ = try await sim.guardianPush(.init(transactionId: push.transactionId))
            #expect(try await Self.nextPush(cluster, device, after: &cursor) == push.data)
            let stranger = try await sim.guardianPush(.init(unknownDevice: true))
            #expect(stranger.data["dai"] != credentials.enrollmentId && stranger.device == credentials.enrollmentId)

            // Push-token change, signed and with the older device token; then unenroll.
            let patch = try await Self.send(try await GuardianDeviceAccount.updatePushToken(
                credentials: credentials, newToken: "new-token", at: Date()))
            #expect(patch.status == 200, "\(patch.text)")
            let byToken = try await Self.send(try await GuardianDeviceAccount.updatePushToken(
                credentials: credentials, newToken: "newer-token", authorization: .deviceToken, at: Date()))
            #expect(byToken.status == 200, "\(byToken.text)")
            var enrolled = try #require(try await sim.guardianDevices().first)
            #expect(enrolled.pushToken == "newer-token" && enrolled.tokenChanges.map(\.auth) == ["jwt", "device_token"])

            #expect(try await Self.send(try await GuardianDeviceAccount.delete(credentials: credentials, at: Date())).status == 204)
            let gone = try await Self.send(try await GuardianDeviceAccount.delete(credentials: credentials, at: Date()))
            #expect(gone.status == 404 && Self.errorCode(gone) == "device_account_not_found")
            enrolled = try #require(try await sim.guardianDevices().first)
            #expect(enrolled.deleted && enrolled.deletedBy == "jwt")
            await #expect(throws: SimAdminClient.Failure.self) { try await sim.guardianPush(.init(device: enrolled.id)) }
        }
    }
}

private extension OutboundRequest {
    /// The `identifier` the enrollment sent (the answers' `iss`).
    var jsonIdentifier: String? {
        (try? JSONDecoder().decode(GuardianEnrollmentBody.self, from: body))?.identifier
    }
}
