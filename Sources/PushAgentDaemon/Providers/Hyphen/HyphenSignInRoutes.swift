import ControlWire
import Hummingbird

/// `POST /v1/hyphen/accounts/{id}/signin`: signs this machine in to a Hyphen account (writers only).
struct HyphenSignInRoutes: ControlRouteCollection {
    let signIn: HyphenSignIn
    let writers: Writers

    func addRoutes(to v1: RouterGroup<PeerContext>) {
        v1.writersPost("hyphen/accounts/:id/signin", HyphenSignInRequest.self, writers: writers,
                       status: .created) { body, peer, context in
            try await signIn.start(account: try context.parameters.require("id"), credential: body.credential, peer: peer)
        }
    }
}
