import Crypto
import Foundation
import PushAgentCore

extension PlusAuthSim {
    /// `POST /sim/plusauth/push-claims`: the claims of a normal `prompt` context for the account, changed and
    /// signed as the request says. The sim keeps no record of it: it is not answerable. Signing with the account's
    /// key needs an ES256 account (the default); the other modes work for any.
    func pushClaims(_ request: SimAdminAPI.ClaimsPushRequest, now: Date) async throws(AdminFailure) -> SimAdminAPI.RawPush {
        let account = try account(named: request.account)
        guard let device = devices[account] else {
            throw AdminFailure(status: 404, code: "not_found", message: "no device enrolled for account '\(account)'")
        }
        let defaults = PlusAuthContextClaims(
            exp: (now.timeIntervalSince1970 + 120).rounded(.down), iat: now.timeIntervalSince1970.rounded(.down),
            contextToken: SimRandom.bytes(32).base64URLUnpadded, resolveURL: publicURL + Self.resolvePath,
            settings: .init(bindSim: false),
            info: .object(["application": .string(device.registration.issuer), "user_identifier": .string(account)]),
            type: "prompt")
        let jwt: String
        do {
            let (algorithm, sign) = try Self.signer(request.signingMode, device: device)
            jwt = try ArbitraryJWS(header: request.header(algorithm: algorithm),
                                   claims: request.claims(over: ArbitraryJWS.object(defaults)),
                                   rawClaims: request.rawClaims ?? [:]).compact(sign: sign)
        } catch let failure as AdminFailure {
            throw failure
        } catch {
            throw AdminFailure(status: 500, code: "internal", message: "cannot build the JWT: \(error)")
        }
        events.emit("sent crafted context to \(account) (signing: \(request.signing ?? "account"))")
        return try await request.deliver(["context": jwt], to: device.registration.deviceToken, relay: relay)
    }

    /// The header's `alg` and the signature function of a signing mode.
    private static func signer(_ mode: SimAdminAPI.ClaimsPushRequest.Signing, device: Device) throws
        -> (String, (Data) throws -> Data) {
        switch mode {
        case .account:
            guard device.algorithm == .es256, let d = device.privateKey.d.flatMap(LenientBase64.decode) else {
                throw AdminFailure.invalidArgument("signing with the account's key needs an ES256 account")
            }
            let key = try P256.Signing.PrivateKey(rawRepresentation: d)
            return ("ES256", { try key.signature(for: $0).rawRepresentation })
        case .otherKey:
            // A key of the kind the header names: only the signature is wrong.
            let key = P256.Signing.PrivateKey()
            return (device.algorithm.rawValue, { try key.signature(for: $0).rawRepresentation })
        case .none:
            return ("none", { _ in Data() })
        case .hmacPublicKey:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return ("HS256", ArbitraryJWS.hmacSHA256(key: try encoder.encode(device.privateKey.publicKey)))
        }
    }
}
