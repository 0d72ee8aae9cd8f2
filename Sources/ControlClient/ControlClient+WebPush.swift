import ControlWire
import Foundation
import PushAgentCore

/// Web Push subscriptions for scripts (`pushctl webpush`) and for UnifiedPush apps (the distributor).
extension ControlClient {
    public func webPushSubscribe(name: String) async throws -> WebPushSubscriptionCreated {
        try await call("POST", "/v1/webpush/subscriptions", body: WebPushSubscribeRequest(name: name))
    }

    public func webPushSubscriptions() async throws -> WebPushSubscriptionsResponse {
        try await get("/v1/webpush/subscriptions")
    }

    public func webPushRemove(name: String) async throws -> WebPushSubscriptionsResponse.Subscription {
        try await call("DELETE", "/v1/webpush/subscriptions/\(escape(name))")
    }

    /// The messages not yet acknowledged; with none, waits up to `wait` seconds (at most 30) for the first.
    public func webPushMessages(name: String, wait: Int = 0) async throws -> [WebPushMessagesResponse.Message] {
        let seconds = min(max(wait, 0), WebPushMessagesResponse.maximumWait)
        // The daemon holds the call up to `wait`: the client must wait longer than that.
        let response: WebPushMessagesResponse = try await get(
            "/v1/webpush/subscriptions/\(escape(name))/messages?wait=\(seconds)", timeout: .seconds(seconds + 15))
        return response.messages
    }

    @discardableResult
    public func webPushAcknowledge(name: String, ids: [String]) async throws -> WebPushAckResponse {
        try await call("POST", "/v1/webpush/subscriptions/\(escape(name))/messages/ack", body: WebPushAckRequest(ids: ids))
    }

    /// Registers a UnifiedPush app (the distributor, for an app's connector): its subscription, name and endpoint.
    public func unifiedPushRegister(_ app: UnifiedPushApp) async throws -> WebPushSubscriptionsResponse.Subscription {
        try await call("POST", "/v1/webpush/apps", body: app)
    }

    /// Removes the registration of the app whose connector chose `token`.
    @discardableResult
    public func unifiedPushUnregister(token: String) async throws -> WebPushSubscriptionsResponse.Subscription {
        try await call("POST", "/v1/webpush/apps/unregister", body: UnifiedPushUnregisterRequest(token: token))
    }
}
