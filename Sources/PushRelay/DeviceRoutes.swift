import ConnectionGuards
import Foundation
import Hummingbird
import Logging
import NIOCore

/// The device side of the relay: registration, long-poll with acknowledgement, and deletion.
struct DeviceRoutes: Sendable {
    static let maxWaitSeconds = 60
    static let maxLimit = 500
    static let defaultLimit = 100
    private static let maxRegistrationBody = 16 * 1024

    let store: any RelayStorage
    let waiters: PollWaiters
    let metrics: RelayMetrics
    let registrationKeyDigest: [UInt8]?

    func add(to router: Router<ConnectionContext>) {
        router.post("/v1/devices") { request, context in
            try await Self.answering { try await self.register(request, context) }
        }
        router.get("/v1/devices/:device_id/messages") { request, context in
            // In a task of its own: a task's stack memory stays at its deepest for as long as the task lives, and the
            // connection's task lives as long as the long-poll waits; this one's is freed once the answer is decided.
            try await Task { try await Self.answering { try await self.poll(request, context) } }.value
        }
        router.delete("/v1/devices/:device_id") { request, context in
            try await Self.answering { try await self.delete(request, context) }
        }
    }

    private static func answering(_ handler: () async throws -> Response) async throws -> Response {
        do {
            return try await handler()
        } catch let error as DeviceAPIError {
            return try error.response()
        }
    }

    private struct RegistrationBody: Decodable {
        var name: String?
        var platform: String?
    }

    private func register(_ request: Request, _ context: ConnectionContext) async throws -> Response {
        if let registrationKeyDigest {
            guard let presented = bearerCredential(request), secretMatches(presented, digest: registrationKeyDigest) else {
                throw DeviceAPIError.unauthorized("this relay requires its registration key as a Bearer token")
            }
        }
        let body: Data
        do { body = try await readBody(request, limit: Self.maxRegistrationBody) }
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
        context.logger.info("device registered", metadata: ["device_id": "\(registration.deviceID)", "platform": "\(platform)"])
        return try jsonResponse(.created, registration)
    }

    private struct PollResponse: Encodable {
        var messages: [RelayMessage]
        var next: Int64
    }

    private func poll(_ request: Request, _ context: ConnectionContext) async throws -> Response {
        let query = request.uri.queryParameters
        let after = try Self.integer(query["after"], name: "after", range: 0...Int64.max, default: 0)
        let wait = try Self.integer(query["wait"], name: "wait", range: 0...Int64(Self.maxWaitSeconds), default: 0)
        let limit = try Self.integer(query["limit"], name: "limit", range: 1...Int64(Self.maxLimit), default: Int64(Self.defaultLimit))
        let device = try await authorizedDevice(request, context)

        // `begin` before the first read: a send that lands between the read and the wait still wakes the poll.
        let ticket = waiters.begin(deviceID: device.id)
        let first: PollResult
        do {
            first = try await read(deviceID: device.id, after: after, limit: Int(limit))
        } catch {
            waiters.end(ticket)
            if let error = error as? CursorAheadError {
                context.logger.warning("device's cursor is ahead of this relay: acknowledged nothing", metadata: [
                    "device_id": "\(device.id)", "after": "\(error.after)", "delivered_seq": "\(error.lastDelivered)"])
                throw DeviceAPIError.cursorAhead(error)
            }
            throw error
        }
        metrics.add(.delivered, first.acknowledged)
        guard first.messages.isEmpty, wait > 0 else {
            waiters.end(ticket)
            return try jsonResponse(.ok, PollResponse(messages: first.messages, next: first.messages.last?.seq ?? after))
        }
        // Nothing yet: the answer waits in its body writer, which Hummingbird runs once this handler and the router's
        // frames have returned, so a waiting poll holds a shallow task stack (most of a waiting poll's memory).
        let deadline = ContinuousClock.now + .seconds(wait)
        let connection = context.channel, logger = context.logger
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            let messages = await waitForMessages(
                ticket, after: after, limit: Int(limit), deadline: deadline, connection: connection, logger: logger)
            try await writer.write(try jsonBody(PollResponse(messages: messages, next: messages.last?.seq ?? after)))
            try await writer.finish(nil)
        })
    }

    /// Waits for a send to the device, a newer poll, the deadline, shutdown, or the client closing its connection.
    /// The status is sent already: a failed read after a wake answers an empty batch, and the next poll says why.
    private func waitForMessages(
        _ ticket: PollWaiters.Ticket, after: Int64, limit: Int, deadline: ContinuousClock.Instant,
        connection: any Channel, logger: Logger
    ) async -> [RelayMessage] {
        defer { waiters.end(ticket) }
        while ContinuousClock.now < deadline,
              await waiters.wait(ticket, until: deadline, connection: connection) == .notified {
            do {
                // A deleted device's poll ends empty; its next one gets the 404.
                guard let messages = try await store.messages(
                    deviceID: ticket.deviceID, after: after, limit: limit, now: nowMilliseconds()) else { return [] }
                if !messages.isEmpty { return messages }
            } catch {
                logger.warning("long-poll ended empty: reading the device's messages failed: \(error)",
                               metadata: ["device_id": "\(ticket.deviceID)"])
                return []
            }
        }
        return []
    }

    private func read(deviceID: String, after: Int64, limit: Int) async throws -> PollResult {
        guard let result = try await store.poll(deviceID: deviceID, after: after, limit: limit, now: nowMilliseconds()) else {
            throw DeviceAPIError.notFound("device \(deviceID) is not registered")
        }
        return result
    }

    private func delete(_ request: Request, _ context: ConnectionContext) async throws -> Response {
        let device = try await authorizedDevice(request, context)
        if try await store.deleteDevice(id: device.id) {
            waiters.dismiss(deviceID: device.id)
            context.logger.info("device deleted", metadata: ["device_id": "\(device.id)"])
        }
        return Response(status: .noContent)
    }

    /// Unknown device → 404 before any credential check: that is the agent's cue to register again.
    private func authorizedDevice(_ request: Request, _ context: ConnectionContext) async throws -> StoredDevice {
        let id = context.parameters.get("device_id") ?? ""
        guard let device = try await store.device(id: id) else {
            throw DeviceAPIError.notFound("device \(id) is not registered")
        }
        guard let secret = bearerCredential(request), secretMatches(secret, digest: device.secretDigest) else {
            throw DeviceAPIError.unauthorized("the device secret is missing or wrong")
        }
        return device
    }

    private static func integer(_ value: Substring?, name: String, range: ClosedRange<Int64>, default defaultValue: Int64) throws -> Int64 {
        guard let value else { return defaultValue }
        guard let number = Int64(value), range.contains(number) else {
            throw DeviceAPIError.invalidArgument("\(name) must be an integer in \(range.lowerBound)...\(range.upperBound), got \"\(value)\"")
        }
        return number
    }
}
