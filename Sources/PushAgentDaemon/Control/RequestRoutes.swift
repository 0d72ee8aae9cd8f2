import ControlAPI
import Foundation
import Hummingbird
import PushAgentCore

/// `/v1/requests`: the 2FA requests this device made (DESIGN.md §4), and the Hyphen sign-in that makes them.
extension ControlRoutes {
    func registerRequests(on router: Router<PeerContext>, hyphenSignIn: HyphenSignIn) {
        router.get("/v1/requests") { _, _ in try JSONResponse.ok(RequestsResponse(requests: try await store.requests())) }
        router.get("/v1/requests/:id") { request, context in
            let wait = try request.uri.queryParameters.get("wait").map { raw in
                guard let seconds = Int(raw), (0...ControlClient.maximumRequestWait).contains(seconds) else {
                    throw ControlError(.invalidArgument, "wait must be 0 to \(ControlClient.maximumRequestWait) seconds, not '\(raw)'")
                }
                return seconds
            } ?? 0
            let watch = RequestWatch(store: store, events: events)
            return try JSONResponse.ok(try await watch.wait(for: try context.parameters.require("id"), timeout: .seconds(wait)) {
                $0.state.isFinal
            })
        }
        router.post("/v1/hyphen/accounts/:id/signin") { request, context in
            let peer = try await writer(context)
            let body = try await request.decodeJSON(HyphenSignInRequest.self)
            let started = try await hyphenSignIn.start(account: try context.parameters.require("id"),
                                                       credential: body.credential, peer: peer)
            return try JSONResponse.ok(started, status: .created)
        }
    }
}
