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
            let wait = try request.uri.queryParameters.get("wait").map { raw in
                guard let seconds = Int(raw), (0...RequestsResponse.maximumWait).contains(seconds) else {
                    throw ControlError(.invalidArgument, "wait must be 0 to \(RequestsResponse.maximumWait) seconds, not '\(raw)'")
                }
                return seconds
            } ?? 0
            let watch = RequestWatch(store: store, events: events)
            return try JSONResponse.ok(try await watch.wait(for: try context.parameters.require("id"), timeout: .seconds(wait)) {
                $0.state.isFinal
            })
        }
    }
}
