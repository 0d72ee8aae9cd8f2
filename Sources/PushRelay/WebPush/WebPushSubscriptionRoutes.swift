import Crypto
import Foundation
import RelayWire
import WebPushWire

/// The device side of Web Push: a registered device creates, lists and removes the subscriptions application
/// servers push to, with the same credentials as its poll. The endpoint's token is shown once, at creation: the
/// relay keeps only its digest.
struct WebPushSubscriptionRoutes: Sendable {
    private static let maxCreationBody = 1024

    let devices: DeviceRoutes
    let origin: WebPushOrigin

    func add(to router: inout RelayRouter) {
        router.add(.post, "/v1/devices/:device_id/webpush", maxBody: Self.maxCreationBody) { request in
            try await devices.answering { try await create(request) }
        }
        router.add(.get, "/v1/devices/:device_id/webpush") { request in
            try await devices.answering { try await list(request) }
        }
        router.add(.delete, "/v1/devices/:device_id/webpush/:id") { request in
            try await devices.answering { try await remove(request) }
        }
    }

    private struct CreationBody: Decodable {
        var application_server_key: String?
    }

    private struct Created: Encodable {
        var id: String
        var endpoint: String
        var created_at: String
    }

    private struct Listed: Encodable {
        var id: String
        /// The application server key the subscription is restricted to, as it was given.
        var application_server_key: String?
        var created_at: String

        init(_ subscription: WebPushSubscription) {
            id = subscription.id
            application_server_key = subscription.applicationServerKey.map { Identifiers.base64URL($0) }
            created_at = RelayTime.rfc3339(milliseconds: subscription.createdAt)
        }
    }

    private func create(_ request: RelayRequest) async throws -> RelayResponse {
        let device = try await devices.authorizedDevice(request)
        let key = try Self.applicationServerKey(request)
        let token = Identifiers.webPushToken()
        guard let endpoint = origin.endpoint(token: token, requestAuthority: request.head.authority) else {
            throw DeviceAPIError.invalidArgument("the request has no Host header to build the endpoint from; send one, or configure public_url")
        }
        let subscription = WebPushSubscription(
            id: Identifiers.webPushSubscriptionID(), deviceID: device.id, applicationServerKey: key, createdAt: nowMilliseconds())
        try await devices.store.createWebPushSubscription(subscription, tokenDigest: secretDigest(token))
        request.logger.info("Web Push subscription created", metadata: [
            "device_id": "\(device.id)", "subscription_id": "\(subscription.id)", "restricted": "\(key != nil)"])
        return try jsonResponse(.created, Created(
            id: subscription.id, endpoint: endpoint, created_at: RelayTime.rfc3339(milliseconds: subscription.createdAt)))
    }

    /// The optional `application_server_key`: a P-256 point, uncompressed, in unpadded base64url (what a browser's
    /// `applicationServerKey` and `pushctl webpush subscribe` take).
    private static func applicationServerKey(_ request: RelayRequest) throws -> Data? {
        let body: Data
        do { body = try request.bodyData() }
        catch { throw DeviceAPIError.invalidArgument(error.message) }
        guard !body.isEmpty else { return nil }
        guard let fields = try? JSONDecoder().decode(CreationBody.self, from: body) else {
            throw DeviceAPIError.invalidArgument("body must be empty or a JSON object {\"application_server_key\": string}")
        }
        guard let text = fields.application_server_key else { return nil }
        guard let key = VAPIDAuthorization.base64URL(text), key.count == 65, key.first == 0x04,
              (try? P256.Signing.PublicKey(x963Representation: key)) != nil else {
            throw DeviceAPIError.invalidArgument("application_server_key must be a P-256 public key, 65 bytes uncompressed (starting 0x04), in base64url without padding (RFC 8292 §3.2)")
        }
        return key
    }

    /// Endpoints are not listed: the relay keeps only their tokens' digests.
    private func list(_ request: RelayRequest) async throws -> RelayResponse {
        let device = try await devices.authorizedDevice(request)
        let subscriptions = try await devices.store.webPushSubscriptions(deviceID: device.id)
        return try jsonResponse(.ok, ["subscriptions": subscriptions.map(Listed.init)])
    }

    private func remove(_ request: RelayRequest) async throws -> RelayResponse {
        let device = try await devices.authorizedDevice(request)
        let id = String(request.parameters["id"] ?? "")
        guard try await devices.store.removeWebPushSubscription(id: id, deviceID: device.id, now: nowMilliseconds()) else {
            throw DeviceAPIError.notFound("device \(device.id) has no Web Push subscription \(id)")
        }
        request.logger.info("Web Push subscription removed", metadata: ["device_id": "\(device.id)", "subscription_id": "\(id)"])
        return RelayResponse(status: .noContent)
    }
}
