import Hummingbird

/// `POST /v1/fcm/check[?app=NAME]`: registers with FCM for one Firebase app (or reuses its registration) and reports
/// it, token included. Writers only, audited: it may change the registration, and the token lets anyone with the
/// app's sender key push here.
struct FCMRoutes: ControlRouteCollection {
    /// One per configured app (AgentServices), `default` first.
    let sources: [FCMPushSource]
    let writers: Writers

    func addRoutes(to v1: RouterGroup<PeerContext>) {
        v1.post("fcm/check") { request, context in
            let peer = try await writers.peer(context)
            let source = try source(named: request.uri.queryParameters.get("app"))
            try await writers.store.audit(event: "fcm_check", peer: peer, subject: source.name, detail: nil)
            return try JSONResponse.ok(try await source.check())
        }
    }

    /// The named app's source; with no name, the default app's, or the only app's.
    private func source(named name: String?) throws -> FCMPushSource {
        guard !sources.isEmpty else {
            throw ServiceError(.unavailable, "FCM is off: set fcm_project_id, fcm_api_key, fcm_app_id and fcm_sender_id (or an [fcm_apps.NAME] table) in pushagentd.toml (docs/fcm.md) and restart pushagentd")
        }
        let names = sources.map(\.appName).joined(separator: ", ")
        if let name {
            guard let source = sources.first(where: { $0.appName == name }) else {
                throw ServiceError(.notFound, "no FCM app '\(name)' in pushagentd.toml (its apps: \(names))")
            }
            return source
        }
        if let source = sources.first(where: { $0.appName == FCMSettings.defaultAppName }) ?? (sources.count == 1 ? sources.first : nil) {
            return source
        }
        throw ServiceError(.invalidArgument, "several FCM apps are configured (\(names)): say which with --app NAME")
    }
}
