import ControlAPI
import Hummingbird

/// `POST /v1/refresh`: polls now. Open to every peer that may read: it changes nothing but the time of a poll.
struct RefreshRoutes: Sendable {
    let privacyIDEA: PrivacyIDEAPoller

    func register(on router: Router<PeerContext>) {
        router.post("/v1/refresh") { _, _ in try JSONResponse.ok(try await privacyIDEA.refresh()) }
    }
}
