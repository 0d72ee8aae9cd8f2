import Hummingbird

/// `POST /v1/refresh`: every push source that can fetch on demand does so now. Open to every peer that may read: it
/// changes nothing but the time of a poll.
struct RefreshRoutes: ControlRouteCollection {
    let pushSources: PushSources
    let ingest: PushIngest

    func addRoutes(to v1: RouterGroup<PeerContext>) {
        v1.post("refresh") { _, _ in try JSONResponse.ok(try await pushSources.refresh(into: ingest)) }
    }
}
