import ControlWire
import Foundation
import PushAgentCore

extension ControlClient {
    /// Starts signing this device in to a Hyphen account; the request is `completed` at once or `pending` while the
    /// user's other device decides.
    public func hyphenSignIn(account: String, credential: String) async throws -> TwoFactorRequest {
        try await call("POST", "/v1/hyphen/accounts/\(escape(account))/signin", body: HyphenSignInRequest(credential: credential))
    }
}
