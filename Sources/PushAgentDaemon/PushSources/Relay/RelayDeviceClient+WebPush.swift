import CurlHTTP
import Foundation

/// The device side of the relay's Web Push subscriptions (docs/relay.md, "Web Push service"), with the poll's
/// credentials.
extension RelayDeviceClient {
    struct CreatedWebPushSubscription: Decodable {
        var id: String
        var endpoint: String
    }

    /// A new subscription: open to any sender, or, with an application server key (RFC 8292), only to senders that
    /// sign VAPID with it.
    func createWebPushSubscription(deviceId: String, secret: String, applicationServerKey: String? = nil) async throws
        -> CreatedWebPushSubscription {
        let body = try JSONEncoder().encode(["application_server_key": applicationServerKey])
        let response = try await send(webPushRequest("POST", "/v1/devices/\(deviceId)/webpush", secret: secret, body: body))
        guard response.status == 201 else { throw error(from: response) }
        do { return try JSONDecoder().decode(CreatedWebPushSubscription.self, from: response.body) }
        catch { throw RelayError.badResponse("Web Push subscription: \(error)") }
    }

    /// Removes the subscription: its senders get 410 from now on. One the relay does not know is gone already.
    func removeWebPushSubscription(id: String, deviceId: String, secret: String) async throws {
        let response = try await send(webPushRequest("DELETE", "/v1/devices/\(deviceId)/webpush/\(id)", secret: secret))
        guard response.status == 204 || response.status == 404 else { throw error(from: response) }
    }

    private func webPushRequest(_ method: String, _ path: String, secret: String, body: Data? = nil) -> HTTPRequest {
        var headers = [(name: "Authorization", value: "Bearer " + secret)]
        if body != nil { headers.append((name: "Content-Type", value: "application/json")) }
        return HTTPRequest(method: method, url: baseURL + path, headers: headers, body: body, timeout: .seconds(15))
    }
}
