import ControlWire
import PushAgentCore
import Hummingbird

/// `/v1/webpush/subscriptions` and `/v1/webpush/apps`: Web Push subscriptions for scripts and UnifiedPush apps
/// (docs/webpush.md). Open to every
/// peer the socket admits, each for its own subscriptions (root: everyone's); made and removed ones are audited.
struct WebPushRoutes: ControlRouteCollection {
    let subscriptions: WebPushSubscriptions

    func addRoutes(to v1: RouterGroup<PeerContext>) {
        v1.post("webpush/subscriptions") { request, context in
            let peer = try await context.peer()
            let name = try await request.decodeJSON(WebPushSubscribeRequest.self).name
            let created = try await subscriptions.subscribe(name: name, peer: peer)
            try await subscriptions.store.audit(event: "webpush_subscribe", peer: peer, subject: name, detail: nil)
            return try JSONResponse.ok(created, status: .created)
        }
        v1.get("webpush/subscriptions") { _, context in
            try JSONResponse.ok(try await subscriptions.list(peer: try await context.peer()))
        }
        v1.delete("webpush/subscriptions/:name") { _, context in
            let (peer, name) = (try await context.peer(), try context.parameters.require("name"))
            let removed = try await subscriptions.remove(name: name, peer: peer)
            try await subscriptions.store.audit(event: "webpush_remove", peer: peer, subject: name, detail: nil)
            return try JSONResponse.ok(removed)
        }
        v1.post("webpush/apps") { request, context in
            let peer = try await context.peer()
            let app = try await request.decodeJSON(UnifiedPushApp.self)
            let (registered, created) = try await subscriptions.register(app, peer: peer)
            if created {
                try await subscriptions.store.audit(event: "unifiedpush_register", peer: peer, subject: registered.name, detail: app.service)
            }
            return try JSONResponse.ok(registered, status: created ? .created : .ok)
        }
        v1.post("webpush/apps/unregister") { request, context in
            let peer = try await context.peer()
            let token = try await request.decodeJSON(UnifiedPushUnregisterRequest.self).token
            let removed = try await subscriptions.unregister(token: token, peer: peer)
            try await subscriptions.store.audit(event: "unifiedpush_unregister", peer: peer, subject: removed.name, detail: removed.app?.service)
            return try JSONResponse.ok(removed)
        }
        v1.get("webpush/subscriptions/:name/messages") { request, context in
            let wait = try request.waitSeconds(atMost: WebPushMessagesResponse.maximumWait)
            return try JSONResponse.ok(try await subscriptions.messages(
                name: try context.parameters.require("name"), peer: try await context.peer(), wait: .seconds(wait)))
        }
        v1.post("webpush/subscriptions/:name/messages/ack") { request, context in
            let ids = try await request.decodeJSON(WebPushAckRequest.self).ids
            return try JSONResponse.ok(try await subscriptions.acknowledge(
                ids: ids, name: try context.parameters.require("name"), peer: try await context.peer()))
        }
    }
}
