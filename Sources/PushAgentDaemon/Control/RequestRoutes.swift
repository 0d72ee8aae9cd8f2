import ControlWire
import Hummingbird
import PushAgentStore

/// `/v1/requests`: the 2FA requests this device made (a provider's sign-in adds them, e.g. Hyphen's).
struct RequestRoutes: ControlRouteCollection {
    let store: AgentStore
    let events: EventBus

    func addRoutes(to v1: RouterGroup<PeerContext>) {
        v1.get("requests") { _, _ in try JSONResponse.ok(RequestsResponse(requests: try await store.requests())) }
        v1.get("requests/:id") { request, context in
            let wait = try request.waitSeconds(atMost: RequestsResponse.maximumWait)
            let watch = RequestWatch(store: store, events: events)
            return try JSONResponse.ok(try await watch.wait(for: try context.parameters.require("id"), timeout: .seconds(wait)) {
                $0.state.isFinal
            })
        }
    }
}
