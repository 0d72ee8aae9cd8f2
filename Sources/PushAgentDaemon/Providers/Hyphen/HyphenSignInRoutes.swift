import ControlWire
import Hummingbird

/// `POST /v1/hyphen/accounts/{id}/signin`: signs this machine in to a Hyphen account (writers only).
struct HyphenSignInRoutes: ControlRouteCollection {
    let signIn: HyphenSignIn
    let writers: Writers

    func addRoutes(to v1: RouterGroup<PeerContext>) {
        v1.post("hyphen/accounts/:id/signin") { request, context in
            let peer = try await writers.peer(context)
            let body = try await request.decodeJSON(HyphenSignInRequest.self)
            let started = try await signIn.start(account: try context.parameters.require("id"),
                                                 credential: body.credential, peer: peer)
            return try JSONResponse.ok(started, status: .created)
        }
    }
}
