import Foundation
import Logging

/// The sender side: FCM HTTP v1's `messages:send`, authorized by static per-project keys or by access tokens
/// from `POST /token` (`TokenRoutes`).
struct SendRoutes: Sendable {
    /// Bodies beyond FCM's 4 KiB payload are refused anyway; this bounds what is read before that check.
    private static let maxBody = 64 * 1024
    /// How long a `ttl: "0s"` message stays readable for the poll it is handed to: FCM's "now or never".
    static let zeroTTLDeliveryWindowMilliseconds: Int64 = 5_000

    struct KeyDigest: Sendable {
        var project: String
        var digest: [UInt8]
    }

    let store: any RelayStorage
    let waiters: PollWaiters
    let metrics: RelayMetrics
    let senderKeys: [KeyDigest]
    /// Several instances share the store: the device's poll may wait on another one, which this one cannot see, so a
    /// `ttl: "0s"` message always gets the delivery window.
    let pollsMayWaitElsewhere: Bool

    func add(to router: inout RelayRouter) {
        router.add(.post, "/v1/projects/:project/messages:send", maxBody: Self.maxBody) { request in
            do {
                return try await self.send(request)
            } catch let error as FCMError {
                return try error.response()
            } catch is StoreUnavailable {
                self.metrics.add(.unavailable)
                return try FCMError.unavailable.response()
            }
        }
    }

    /// FCM's answer, `{"name": "projects/P/messages/ID"}`, written directly: a send's answer is on the hot path.
    private static func sent(project: Substring, messageID: String) -> RelayResponse {
        .json(.ok, JSONText.object(["name": "projects/\(project)/messages/\(messageID)"]))
    }

    private func send(_ request: RelayRequest) async throws -> RelayResponse {
        let project = request.parameters["project"] ?? ""
        try await authorize(request, project: String(project))
        let body: Data
        do { body = try request.bodyData() }
        catch { throw FCMError.invalidArgument(error.message) }
        let send = try FCMSendRequest.parse(body)
        guard let deviceID = try await store.deviceID(forToken: send.token) else { throw FCMError.unregistered }
        if send.validateOnly {
            return Self.sent(project: project, messageID: "fake_message_id")
        }

        var outgoing = send.message
        if outgoing.ttlMilliseconds == 0 {
            guard pollsMayWaitElsewhere || waiters.hasPoll(deviceID: deviceID) else {
                metrics.add(.expired)
                request.logger.info("ttl 0 message dropped: device not polling", metadata: ["device_id": "\(deviceID)"])
                return Self.sent(project: project, messageID: Identifiers.messageID())
            }
            outgoing.ttlMilliseconds = Self.zeroTTLDeliveryWindowMilliseconds
        }
        let enqueued: EnqueueResult?
        do {
            enqueued = try await store.enqueue(outgoing, deviceID: deviceID, now: nowMilliseconds())
        } catch let full as DeviceQueueFull {
            throw FCMError.quotaExceeded("The device has \(full.limit) undelivered messages, the most the relay keeps; it is not polling. Retry later, or send with a collapse_key or a shorter ttl.")
        }
        guard let result = enqueued else { throw FCMError.unregistered }
        waiters.notify(deviceID: deviceID)
        metrics.add(.sent)
        metrics.add(.collapsed, result.collapsed)
        // Debug, not info: at thousands of messages a second, a journal line each would cost more than the send.
        request.logger.debug("message accepted", metadata: [
            "message_id": "\(result.message.id)", "device_id": "\(deviceID)", "project": "\(project)",
            "seq": "\(result.message.seq)",
        ])
        return Self.sent(project: project, messageID: result.message.id)
    }

    /// A static sender key is checked first; every configured key is compared, matching or not, so timing does not
    /// tell which key came close. Anything else must be an unexpired access token from `POST /token`.
    private func authorize(_ request: RelayRequest, project: String) async throws {
        guard let credential = bearerCredential(request) else {
            throw FCMError.unauthenticated(
                "Request is missing required authentication credential. Expected a Bearer sender key or OAuth 2 access token.")
        }
        let presented = secretDigest(credential)
        var matchesThisProject = false, matchesAnyProject = false
        for key in senderKeys {
            let matches = constantTimeEquals(presented, key.digest)
            matchesAnyProject = matchesAnyProject || matches
            matchesThisProject = matchesThisProject || (matches && key.project == project)
        }
        if matchesThisProject { return }
        if matchesAnyProject { throw FCMError.permissionDenied(project: project) }

        let tokenProjects = try await store.accessTokenProjects(digest: presented, now: nowMilliseconds())
        if tokenProjects.contains(project) { return }
        throw tokenProjects.isEmpty
            ? FCMError.unauthenticated(
                "Request had invalid authentication credentials: neither a sender key of this relay nor an unexpired access token from its /token endpoint.")
            : FCMError.permissionDenied(project: project)
    }
}
