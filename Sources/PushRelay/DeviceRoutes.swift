import Foundation
import HTTPTypes
import Logging
import RelayWire

/// The device side of the relay: registration, long-poll with acknowledgement, and deletion. A class: each waiting
/// poll keeps the routes, and a reference is 8 bytes of it where a copy would be 64.
final class DeviceRoutes: Sendable {
    static let maxWaitSeconds = 60
    static let maxLimit = 500
    static let defaultLimit = 100
    private static let maxRegistrationBody = 16 * 1024

    let store: any RelayStorage
    let waiters: PollWaiters
    let metrics: RelayMetrics
    let registrationKeyDigest: [UInt8]?
    let logger: Logger

    init(store: any RelayStorage, waiters: PollWaiters, metrics: RelayMetrics, registrationKeyDigest: [UInt8]?,
         logger: Logger) {
        self.store = store
        self.waiters = waiters
        self.metrics = metrics
        self.registrationKeyDigest = registrationKeyDigest
        self.logger = logger
    }

    func add(to router: inout RelayRouter) {
        router.add(.post, "/v1/devices", maxBody: Self.maxRegistrationBody) { request in
            try await self.answering { try await self.register(request) }
        }
        router.add(.get, "/v1/devices/:device_id/messages", immediate: { self.pollFromMemory($0) }) { request in
            try await self.answering { try await self.poll(request) }
        }
        router.add(.delete, "/v1/devices/:device_id") { request in
            try await self.answering { try await self.delete(request) }
        }
    }

    /// A device-API handler's answer, its refusals in the device API's error format.
    func answering(_ handler: () async throws -> RelayResponse?) async throws -> RelayResponse? {
        do {
            return try await handler()
        } catch let error as DeviceAPIError {
            return try error.response()
        } catch let error as StoreUnavailable {
            metrics.add(.unavailable)
            return try DeviceAPIError.unavailable(error).response()
        }
    }

    private struct RegistrationBody: Decodable {
        var name: String?
        var platform: String?
    }

    private func register(_ request: RelayRequest) async throws -> RelayResponse {
        if let registrationKeyDigest {
            guard let presented = bearerCredential(request), secretMatches(presented, digest: registrationKeyDigest) else {
                throw DeviceAPIError.unauthorized("this relay requires its registration key as a Bearer token")
            }
        }
        let body: Data
        do { body = try request.bodyData() }
        catch { throw DeviceAPIError.invalidArgument(error.message) }
        let fields: RegistrationBody
        do {
            fields = body.isEmpty ? RegistrationBody() : try JSONDecoder().decode(RegistrationBody.self, from: body)
        } catch {
            throw DeviceAPIError.invalidArgument("body must be a JSON object {\"name\": string, \"platform\": string}")
        }
        let name = fields.name ?? "", platform = fields.platform ?? ""
        guard name.count <= 200, platform.count <= 64 else {
            throw DeviceAPIError.invalidArgument("name is limited to 200 characters and platform to 64")
        }
        let registration = try await store.registerDevice(name: name, platform: platform)
        request.logger.info("device registered", metadata: ["device_id": "\(registration.deviceID)", "platform": "\(platform)"])
        return try jsonResponse(.created, registration)
    }

    /// Answers at once when messages are queued or the poll does not wait; otherwise returns nil and answers through
    /// the request's responder when a send, the deadline, a newer poll, shutdown or the client's leaving ends the
    /// wait. No task waits meanwhile: the waiter's callback starts the next read.
    private func poll(_ request: RelayRequest) async throws -> RelayResponse? {
        let query = try PollQuery(request.query)
        let device = try await authorizedDevice(request)

        // `begin` before the first read: a send that lands between the read and the wait still wakes the poll.
        let ticket = waiters.begin(deviceID: device.id)
        let first: PollResult
        do {
            first = try await read(deviceID: device.id, after: query.after, limit: query.limit)
        } catch {
            waiters.end(ticket)
            if let error = error as? CursorAheadError {
                request.logger.warning("device's cursor is ahead of this relay: acknowledged nothing", metadata: [
                    "device_id": "\(device.id)", "after": "\(error.after)", "delivered_seq": "\(error.lastDelivered)"])
                throw DeviceAPIError.cursorAhead(error)
            }
            throw error
        }
        return respond(first, ticket: ticket, query, request)
    }

    /// The poll that acknowledges what its device was just handed (one per delivered message), answered on the
    /// connection's event loop from what the store knows without a read (`RelayStorage.pollFromMemory`): no task, no
    /// hand-off to a reader. Anything else, a refusal included, is `poll`'s.
    private func pollFromMemory(_ request: RelayRequest) -> RelayRouter.ImmediateOutcome {
        guard let query = try? PollQuery(request.query),
              let device = store.cachedDevice(id: String(request.parameters["device_id"] ?? "")),
              let secret = bearerCredential(request), secretMatches(secret, digest: device.secretDigest) else {
            return .needsHandler
        }
        let ticket = waiters.begin(deviceID: device.id)
        guard let first = store.pollFromMemory(deviceID: device.id, after: query.after, now: nowMilliseconds()) else {
            waiters.end(ticket)
            return .needsHandler
        }
        return respond(first, ticket: ticket, query, request).map { .answered($0) } ?? .waiting
    }

    /// After a poll's first read: its batch now, or nil while it waits for one.
    private func respond(_ first: PollResult, ticket: PollWaiters.Ticket, _ query: PollQuery,
                         _ request: RelayRequest) -> RelayResponse? {
        metrics.add(.delivered, first.acknowledged)
        guard first.messages.isEmpty, query.wait > 0 else {
            waiters.end(ticket)
            return Self.batch(first.messages, after: query.after)
        }
        PollWait(routes: self, ticket: ticket, after: query.after, limit: query.limit,
                 deadline: .now + .seconds(query.wait), responder: request.responder).next()
        // Once, for every wait the poll goes through: a client that left while none was in place ends the next.
        request.responder.whenClientGone { [waiters] in waiters.clientGone(ticket) }
        return nil
    }

    private struct PollQuery {
        let after: Int64
        let wait: Int64
        let limit: Int

        init(_ query: [String: String]) throws {
            after = try DeviceRoutes.integer(query["after"], name: "after", range: 0...Int64.max, default: 0)
            wait = try DeviceRoutes.integer(query["wait"], name: "wait", range: 0...Int64(DeviceRoutes.maxWaitSeconds), default: 0)
            limit = Int(try DeviceRoutes.integer(query["limit"], name: "limit", range: 1...Int64(DeviceRoutes.maxLimit),
                                                 default: Int64(DeviceRoutes.defaultLimit)))
        }
    }

    private static func batch(_ messages: [RelayMessage], after: Int64) -> RelayResponse {
        .json(.ok, PollReply(messages: messages, next: messages.last?.seq ?? after).jsonText)
    }

    /// A long-poll waiting for messages. The status is sent with the answer: a failed read after a wake answers an
    /// empty batch, and the next poll says why.
    private struct PollWait: Sendable {
        let routes: DeviceRoutes
        let ticket: PollWaiters.Ticket
        let after: Int64
        let limit: Int
        let deadline: ContinuousClock.Instant
        let responder: RelayResponder

        /// Waits again, unless the deadline has passed.
        func next() {
            guard ContinuousClock.now < deadline else { return finish([]) }
            routes.waiters.wait(ticket, until: deadline) { outcome in
                guard outcome == .notified else { return finish([]) }
                if let recent = routes.store.recentMessages(deviceID: ticket.deviceID, after: after, now: nowMilliseconds()) {
                    return recent.isEmpty ? next() : finish(recent)
                }
                Task { await read() }
            }
        }

        private func read() async {
            do {
                // A deleted device's poll ends empty; its next one gets the 404.
                guard let messages = try await routes.store.messages(
                    deviceID: ticket.deviceID, after: after, limit: limit, now: nowMilliseconds()) else { return finish([]) }
                if messages.isEmpty { return next() }
                finish(messages)
            } catch {
                // An outage is logged once by the store, not by each poll it ends.
                if !(error is StoreUnavailable) {
                    routes.logger.warning("long-poll ended empty: reading the device's messages failed: \(error)",
                                   metadata: ["device_id": "\(ticket.deviceID)"])
                }
                finish([])
            }
        }

        private func finish(_ messages: [RelayMessage]) {
            routes.waiters.end(ticket)
            responder.send(DeviceRoutes.batch(messages, after: after))
        }
    }

    private func read(deviceID: String, after: Int64, limit: Int) async throws -> PollResult {
        guard let result = try await store.poll(deviceID: deviceID, after: after, limit: limit, now: nowMilliseconds()) else {
            throw DeviceAPIError.notFound("device \(deviceID) is not registered")
        }
        return result
    }

    private func delete(_ request: RelayRequest) async throws -> RelayResponse {
        let device = try await authorizedDevice(request)
        if try await store.deleteDevice(id: device.id) {
            waiters.dismiss(deviceID: device.id)
            request.logger.info("device deleted", metadata: ["device_id": "\(device.id)"])
        }
        return RelayResponse(status: .noContent)
    }

    /// Unknown device → 404 before any credential check: that is the agent's cue to register again.
    func authorizedDevice(_ request: RelayRequest) async throws -> StoredDevice {
        let id = String(request.parameters["device_id"] ?? "")
        guard let device = try await store.device(id: id) else {
            throw DeviceAPIError.notFound("device \(id) is not registered")
        }
        guard let secret = bearerCredential(request), secretMatches(secret, digest: device.secretDigest) else {
            throw DeviceAPIError.unauthorized("the device secret is missing or wrong")
        }
        return device
    }

    private static func integer(_ value: String?, name: String, range: ClosedRange<Int64>, default defaultValue: Int64) throws -> Int64 {
        guard let value else { return defaultValue }
        guard let number = Int64(value), range.contains(number) else {
            throw DeviceAPIError.invalidArgument("\(name) must be an integer in \(range.lowerBound)...\(range.upperBound), got \"\(value)\"")
        }
        return number
    }
}
