import Hummingbird

/// `POST /v1/fcm/check`: registers with FCM (or reuses the registration) and reports it, token included. Writers
/// only, audited: it may change the registration, and the token lets anyone with the app's sender key push here.
struct FCMRoutes: ControlRouteCollection {
    let source: FCMPushSource?
    let writers: Writers

    func addRoutes(to v1: RouterGroup<PeerContext>) {
        v1.post("fcm/check") { _, context in
            let peer = try await writers.peer(context)
            guard let source else {
                throw ServiceError(.unavailable, "FCM is off: set fcm_project_id, fcm_api_key, fcm_app_id and fcm_sender_id in pushagentd.toml (docs/fcm.md) and restart pushagentd")
            }
            try await writers.store.audit(event: "fcm_check", peer: peer, subject: source.name, detail: nil)
            return try JSONResponse.ok(try await source.check())
        }
    }
}
