import Crypto
import Foundation
import PushAgentCore

/// Signing a device in: sign-up, the 2FA request another device approves, and the device-key challenge.
extension HyphenSim {
    static let twoFactorLifetime: TimeInterval = 180

    func signUp(_ body: HyphenSignUpBody) throws(HyphenFailure) -> HyphenSignInResult {
        var user = try user(withCredential: body.token)
        guard user.address == nil else {
            throw .badRequest("\(user.email) already has an account: sign in instead")
        }
        let key = try devicePublicKey(body.userKey)
        user.address = newAccount(devices: [key])
        register(body.userKey.device, for: &user)
        users[user.email] = user
        events.emit("hyphen: \(user.email) signed up with device \(body.userKey.device.name) (account \(user.address!))")
        return signedIn(user.email, publicKey: body.userKey.publicKey.lowercased())
    }

    /// The agent asks to sign in; the sim's phone is the destination device.
    func signIn2FA(_ body: HyphenSignIn2FABody, now: Date) throws(HyphenFailure) -> HyphenSignIn2FA {
        let user = try user(withCredential: body.request.token)
        guard user.address != nil, let phone = user.phone, let phoneDevice = user.devices[phone.publicKeyHex] else {
            throw .badRequest("\(user.email) has no account yet: please sign up")
        }
        let newKey = try devicePublicKey(body.userKey)
        let status = twoFactor(email: user.email, accountId: user.accountId, src: body.userKey.device, dest: phoneDevice,
                               message: Self.cadenceMessage(newKey), expiresAt: now.addingTimeInterval(Self.twoFactorLifetime),
                               now: now)
        let token = "pushsim-ephemeral-" + Self.randomHex(16)
        twoFactors[status.id] = TwoFactor(status: status, email: user.email, direction: .fromAgent, newKey: newKey,
                                          ephemeralToken: token)
        events.emit("hyphen: \(body.userKey.device.name) asks to sign in as \(user.email); 2FA request \(status.id) waits for the phone")
        return HyphenSignIn2FA(twoFactorAuth: status, ephemeralAccessToken: token)
    }

    /// The sim's phone answers the agent's request (admin API); the agent hears of it by push unless `push` is false.
    /// Untyped `throws` (it throws `AdminFailure`), as `requestApproval`'s, for the same compiler crash.
    func decide(_ id: String, approve: Bool, push: Bool) async throws -> SimAdminAPI.HyphenTwoFactor {
        guard var request = twoFactors[id], request.direction == .fromAgent else {
            throw AdminFailure(status: 404, code: "not_found", message: "no sign-in request \(id) from the agent")
        }
        guard request.status.status == .pending else {
            throw AdminFailure(status: 409, code: "conflict", message: "request \(id) is already \(request.status.status.rawValue)")
        }
        if approve {
            let address = users[request.email]!.address!
            ledger.addKey(.init(publicKey: request.newKey, hashing: "SHA2_256", weight: FlowLedger.fullWeight / 2), to: address)
            register(request.status.request.srcDevice, email: request.email)
            request.status.status = .approved
            // The phone's own transaction is not modelled; its id only has to look like one.
            request.status.result = .init(txId: Self.randomHex(32))
        } else {
            request.status.status = .denied
        }
        twoFactors[id] = request
        events.emit("hyphen: the phone \(approve ? "approved" : "denied") sign-in request \(id)\(push ? "" : " (no push: the agent must poll)")")
        if push {
            do throws(HyphenFailure) { try await self.push("2fa-status-change", request.status, to: request.status.request.srcDevice.pushToken, ttl: 120) }
            catch { throw AdminFailure(status: 502, code: "upstream", message: error.message) }
        }
        return Self.summary(request)
    }

    /// `GET /device/v1/2fa/{id}` with the sign-in's ephemeral token (or a session).
    func status(of id: String, token: String?) throws(HyphenFailure) -> HyphenSignIn2FA {
        guard let request = twoFactors[id] else { throw .notFound("no 2FA request \(id)") }
        let session = token.flatMap { sessions[$0] }
        guard token != nil, token == request.ephemeralToken || session?.email == request.email else {
            throw .unauthorized("the bearer token does not belong to request \(id)")
        }
        return HyphenSignIn2FA(twoFactorAuth: request.status)
    }

    func finish(_ body: HyphenFinishBody, token: String?) throws(HyphenFailure) -> HyphenSignInResult {
        guard let (id, request) = twoFactors.first(where: { $0.value.status.request.id == body.twoFactorAuthRequestId }) else {
            throw .notFound("no 2FA request \(body.twoFactorAuthRequestId)")
        }
        guard token != nil, token == request.ephemeralToken else { throw .unauthorized("not this sign-in's ephemeral token") }
        switch request.status.status {
        case .pending: throw .badRequest("2FA request \(id) is not approved yet")
        case .denied: throw .forbidden("2FA request \(id) was denied")
        case .approved: break
        }
        guard !request.finished else { throw .badRequest("2FA request \(id) was already finished") }
        twoFactors[id]?.finished = true
        events.emit("hyphen: \(request.status.request.srcDevice.name) finished signing in as \(request.email)")
        return signedIn(request.email, publicKey: request.status.request.srcDevice.publicKey.lowercased())
    }

    func challenge(_ body: HyphenChallengeBody, now: Date) throws(HyphenFailure) -> HyphenChallenge {
        let user = try user(withCredential: body.request.token)
        guard body.challengeType == "deviceKey" else { throw .badRequest("unsupported challengeType '\(body.challengeType)'") }
        guard let address = user.address, ledger.keyIndex(of: body.publicKey, on: address) != nil else {
            throw .badRequest("the device key is not registered on \(user.email)'s account")
        }
        let data = "pushsim-challenge-" + Self.randomHex(16)
        let expiresAt = now.addingTimeInterval(120)
        challenges[data] = (user.email, body.publicKey.lowercased(), expiresAt)
        return HyphenChallenge(challengeData: data, expiresAt: HyphenTimestamp.format(expiresAt))
    }

    func respond(_ body: HyphenChallengeResponseBody, now: Date) throws(HyphenFailure) -> HyphenSignInResult {
        guard let challenge = challenges.removeValue(forKey: body.challengeData), challenge.expiresAt > now else {
            throw .badRequest("unknown, used or expired challenge")
        }
        guard let key = HyphenDeviceKey.publicKey(hex: challenge.publicKey),
              let signature = Hex.decode(body.deviceKey.signature),
              FlowSigning.isValid(signature, of: Data(body.challengeData.utf8), by: key)
        else { throw .unauthorized("the device-key signature does not verify") }
        events.emit("hyphen: device key \(challenge.publicKey.prefix(12))… signed in as \(challenge.email) (challenge)")
        return signedIn(challenge.email, publicKey: challenge.publicKey)
    }

    func keys(token: String?) throws(HyphenFailure) -> HyphenKeys {
        let (user, _) = try user(signedInWith: token)
        guard let address = user.address, let account = ledger.account(address) else { return HyphenKeys(keys: []) }
        return HyphenKeys(keys: (account.keys ?? []).compactMap { key in
            guard let index = UInt32(key.index), !key.revoked else { return nil }
            return .init(publicKey: key.publicKey, type: index == 0 ? "server-key" : "user-key",
                         name: user.devices[key.publicKey]?.name ?? "key \(index)", keyIndex: index)
        })
    }

    // MARK: Helpers

    func twoFactor(email: String, accountId: String, src: HyphenDevice, dest: HyphenDevice, message: String,
                   expiresAt: Date, now: Date) -> Hyphen2FAStatus {
        Hyphen2FAStatus(
            id: UUID().uuidString.lowercased(), accountId: accountId, status: .pending,
            expiresAt: HyphenTimestamp.format(expiresAt),
            request: Hyphen2FARequest(
                id: UUID().uuidString.lowercased(), app: .init(appId: "pushsim", appName: Self.appName),
                userOpInfo: .init(type: "sign-in", signIn: .init(location: "Seoul, KR", ip: "127.0.0.1", email: email)),
                srcDevice: src, destDevice: dest, requestedAt: HyphenTimestamp.format(now), message: message))
    }

    static func cadenceMessage(_ key: P256.Signing.PublicKey) -> String {
        String(decoding: (try? JSONEncoder().encode(["cadence": addKeyCadence(key)])) ?? Data(), as: UTF8.self)
    }

    private func devicePublicKey(_ userKey: HyphenUserKey) throws(HyphenFailure) -> P256.Signing.PublicKey {
        guard userKey.type == "device", userKey.publicKey.lowercased() == userKey.device.publicKey.lowercased(),
              let key = HyphenDeviceKey.publicKey(hex: userKey.publicKey)
        else { throw .badRequest("userKey must be a device key: 128 hex digits x‖y of a P-256 point") }
        return key
    }

    private func register(_ device: HyphenDevice, for user: inout User) {
        user.devices[device.publicKey.lowercased()] = device
        user.lastRegistration = Date()
    }

    private func register(_ device: HyphenDevice, email: String) {
        guard var user = users[email] else { return }
        register(device, for: &user)
        users[email] = user
    }
}
