import Foundation
import PushAgentCore

/// What a sign-in stores with a pending Hyphen request: what finishing it (or asking about it) needs.
struct HyphenSignInContext: Codable, Sendable {
    /// `twoFactorAuth.request.id`: what `/auth/v1/signin/2fa/finish` names.
    var requestId: String
    /// Bearer for finishing and polling this one sign-in.
    var ephemeralToken: String
}

extension HyphenHTTP {
    /// Turns a successful sign-in (sign-up, 2FA finish, device-key challenge) into the session kept with the account:
    /// the access token, the Flow address on the account's chain, and where this device's key sits among its keys.
    func session(from result: HyphenSignInResult, credentials: HyphenCredentials) async throws(AnswerFailure)
        -> HyphenCredentials.Session {
        let addresses = result.account.addresses
        guard let entry = addresses.first(where: { $0.chainName == credentials.app.chain.rawValue }) ?? addresses.first,
              let address = FlowAddress(hex: entry.address)
        else { throw .rejected("Hyphen's sign-in reply names no Flow address for \(credentials.app.chain.rawValue)") }
        let request = try Self.build { try HyphenAPI(credentials).keys(token: result.credentials.accessToken) }
        let keys = try await json(request, step: "account keys", as: HyphenKeys.self)
        let publicKey: String
        do { publicKey = try credentials.key().publicKeyHex } catch { throw .rejected("the stored device key is unreadable") }
        guard let own = keys.keys.first(where: { $0.publicKey.lowercased() == publicKey }) else {
            throw .rejected("Hyphen signed this device in but does not list its key among the account's keys")
        }
        return HyphenCredentials.Session(accessToken: result.credentials.accessToken,
                                         refreshToken: result.credentials.refreshToken, address: address,
                                         keyIndex: own.keyIndex)
    }
}
