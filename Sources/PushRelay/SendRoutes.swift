import Foundation
import Logging

/// The sender side: FCM HTTP v1's `messages:send`, authorized by static per-project keys or by access tokens
/// from `POST /token` (`TokenRoutes`).
struct SendRoutes: Sendable {
    /// Bodies beyond FCM's 4 KiB payload are refused anyway; this bounds what is read before that check.
    private static let maxBody = 64 * 1024

    struct KeyDigest: Sendable {
        var project: String
        var digest: [UInt8]
    }

    let store: any RelayStorage
    let waiters: PollWaiters
    let metrics: RelayMetrics
    let senderKeys: [KeyDigest]
    let zeroTTL: ZeroTTLAdmission

    func add(to router: inout RelayRouter) {
        router.add(.post, "/v1/projects/:project/messages:send", maxBody: Self.maxBody,
                   immediate: { self.sendFromEventLoop($0) }) { request in
            do {
                return try await self.send(request)
            } catch {
                return try self.answer(failure: error)
            }
        }
    }

    /// FCM's answer, `{"name": "projects/P/messages/ID"}`, written directly: a send's answer is on the hot path.
    private static func sent(project: Substring, messageID: String) -> RelayResponse {
        .json(.ok, JSONText.object(["name": "projects/\(project)/messages/\(messageID)"]))
    }

    /// Nil once the message is handed to the store, which answers through the request's responder.
    private func send(_ request: RelayRequest) async throws -> RelayResponse? {
        let project = request.parameters["project"] ?? ""
        try await authorize(request, project: String(project))
        let send = try Self.parse(request)
        guard let deviceID = try await store.deviceID(forToken: send.token) else { throw FCMError.unregistered }
        switch admit(send, deviceID: deviceID, project: project, request) {
        case .answered(let response):
            return response
        case .enqueue(let outgoing):
            enqueue(outgoing, deviceID: deviceID, project: project, request)
            return nil
        }
    }

    /// The commonest send, taken from the connection's event loop to the store and answered when its commit is on
    /// disk (or refused there), with no task in between: a static sender key of the project, a device the relay knows
    /// by its token without a read, a body that parses. Any other send is `send`'s, which says what it refuses.
    private func sendFromEventLoop(_ request: RelayRequest) -> RelayRouter.ImmediateOutcome {
        let project = request.parameters["project"] ?? ""
        guard let credential = bearerCredential(request),
              staticKeyMatch(secretDigest(credential), project: project) == .thisProject,
              let send = try? Self.parse(request), let deviceID = store.cachedDeviceID(forToken: send.token) else {
            return .needsHandler
        }
        switch admit(send, deviceID: deviceID, project: project, request) {
        case .answered(let response):
            return .answered(response)
        case .enqueue(let outgoing):
            enqueue(outgoing, deviceID: deviceID, project: project, request)
            return .waiting
        }
    }

    /// Stores an admitted message and answers its send once the store has: on SQLite from the writer, once the message
    /// is on disk.
    private func enqueue(_ outgoing: OutgoingMessage, deviceID: String, project: Substring, _ request: RelayRequest) {
        store.enqueue(outgoing, deviceID: deviceID, now: nowMilliseconds()) { result in
            let response: RelayResponse
            do {
                response = try accepted(try result.mapError(Self.sendFailure).get(), deviceID: deviceID,
                                        project: project, request)
            } catch {
                response = (try? answer(failure: error)) ?? request.internalError(error)
            }
            request.responder.send(response)
        }
    }

    private static func parse(_ request: RelayRequest) throws(FCMError) -> FCMSendRequest {
        let body: Data
        do { body = try request.bodyData() }
        catch { throw FCMError.invalidArgument(error.message) }
        return try FCMSendRequest.parse(body)
    }

    private enum Admission {
        case answered(RelayResponse)
        case enqueue(OutgoingMessage)
    }

    /// What becomes of a send to a known device before anything is stored: a validation is answered, a `ttl: "0s"`
    /// message for a device that is not polling is dropped, as FCM does.
    private func admit(_ send: FCMSendRequest, deviceID: String, project: Substring, _ request: RelayRequest) -> Admission {
        if send.validateOnly {
            return .answered(Self.sent(project: project, messageID: "fake_message_id"))
        }
        guard let outgoing = zeroTTL.admit(send.message, deviceID: deviceID, logger: request.logger) else {
            return .answered(Self.sent(project: project, messageID: Identifiers.messageID()))
        }
        return .enqueue(outgoing)
    }

    private static func sendFailure(_ error: any Error) -> any Error {
        guard let full = error as? DeviceQueueFull else { return error }
        return FCMError.quotaExceeded("The device has \(full.limit) undelivered messages, the most the relay keeps: it is not polling, or not as fast as messages come. Retry later, or send with a collapse_key or a shorter ttl.")
    }

    /// The answer to a stored send, once it is on disk: the device's poll is woken.
    private func accepted(_ enqueued: EnqueueResult?, deviceID: String, project: Substring,
                          _ request: RelayRequest) throws -> RelayResponse {
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

    /// FCM's answer to a refused send; anything else is rethrown, for the 500 the server answers.
    private func answer(failure error: any Error) throws -> RelayResponse {
        switch error {
        case let error as FCMError:
            return try error.response()
        case is StoreUnavailable:
            metrics.add(.unavailable)
            return try FCMError.unavailable.response()
        case is StoreOutcomeUnknown:
            metrics.add(.outcomeUnknown)
            return try FCMError.outcomeUnknown.response()
        default:
            throw error
        }
    }

    private enum StaticKeyMatch { case thisProject, anotherProject, none }

    /// Every configured key is compared, matching or not, so timing does not tell which key came close.
    private func staticKeyMatch(_ presented: [UInt8], project: Substring) -> StaticKeyMatch {
        var matchesThisProject = false, matchesAnyProject = false
        for key in senderKeys {
            let matches = constantTimeEquals(presented, key.digest)
            matchesAnyProject = matchesAnyProject || matches
            matchesThisProject = matchesThisProject || (matches && key.project == project)
        }
        return matchesThisProject ? .thisProject : matchesAnyProject ? .anotherProject : .none
    }

    /// A static sender key is checked first; anything else must be an unexpired access token from `POST /token`.
    private func authorize(_ request: RelayRequest, project: String) async throws {
        guard let credential = bearerCredential(request) else {
            throw FCMError.unauthenticated(
                "Request is missing required authentication credential. Expected a Bearer sender key or OAuth 2 access token.")
        }
        let presented = secretDigest(credential)
        switch staticKeyMatch(presented, project: Substring(project)) {
        case .thisProject: return
        case .anotherProject: throw FCMError.permissionDenied(project: project)
        case .none: break
        }
        let tokenProjects = try await store.accessTokenProjects(digest: presented, now: nowMilliseconds())
        if tokenProjects.contains(project) { return }
        throw tokenProjects.isEmpty
            ? FCMError.unauthenticated(
                "Request had invalid authentication credentials: neither a sender key of this relay nor an unexpired access token from its /token endpoint.")
            : FCMError.permissionDenied(project: project)
    }
}
