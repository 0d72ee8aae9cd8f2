import Foundation
import PushAgentCore

extension ForgeRockSim {
    /// `POST /sim/forgerock/push-claims`: the claims a normal push would carry (a `default` push to the account's
    /// mechanism), changed and signed as the request says. The sim keeps no record of it: it is not answerable.
    func pushClaims(_ request: SimAdminAPI.ClaimsPushRequest, now: Date) async throws(AdminFailure) -> SimAdminAPI.RawPush {
        let account = try account(named: request.account)
        guard let (registration, secret) = registrations[account] else {
            throw AdminFailure(status: 404, code: "not_found", message: "no device registered for account '\(account)'")
        }
        let key: Data? = switch try request.signingMode {
        case .account: secret
        case .otherKey: SimRandom.bytes(32)
        case .none: nil
        case .hmacPublicKey: throw .invalidArgument("ForgeRock's key is a shared secret: there is no public key to confuse it with")
        }
        let defaults = ForgeRockServer.notificationClaims(
            challenge: SimRandom.bytes(32), mechanismUid: registration.mechanismUid, cookie: Self.cookie,
            issuedAt: now, message: "Sign in?", userId: account)
        let jwt: String
        do {
            jwt = try ArbitraryJWS(header: request.header(algorithm: key == nil ? "none" : "HS256"),
                                   claims: request.claims(over: ArbitraryJWS.object(defaults)),
                                   rawClaims: request.rawClaims ?? [:])
                .compact(sign: key.map(ArbitraryJWS.hmacSHA256(key:)) ?? { _ in Data() })
        } catch {
            throw AdminFailure(status: 500, code: "internal", message: "cannot build the JWT: \(error)")
        }
        let messageId = request.messageId ?? "AUTHENTICATE:\(UUID().uuidString.lowercased())\(Self.millis(now))"
        events.emit("sent crafted push \(messageId) to \(account) (signing: \(request.signing ?? "account"))")
        return try await request.deliver(["messageId": messageId, "message": jwt], to: registration.deviceToken, relay: relay)
    }
}
