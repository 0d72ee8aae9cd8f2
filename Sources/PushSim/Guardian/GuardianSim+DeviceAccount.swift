import Foundation
import PushAgentCore

/// `PATCH` / `DELETE <api>/api/device-accounts/<id>` reply: the device account as Guardian shows it.
struct GuardianDeviceAccountReply: Encodable {
    var id: String
    var identifier: String
    var name: String
    var pushCredentials: GuardianPushCredentials

    enum CodingKeys: String, CodingKey { case id, identifier, name, pushCredentials = "push_credentials" }
}

extension GuardianSim {
    /// Both SDKs give the device-account JWT two hours; a longer one is not theirs.
    static let deviceAccountJWTLifetime: Int64 = 2 * 3600
    /// The agent and the sim share a clock in the tests; this only absorbs rounding to whole seconds.
    static let clockSkew: Int64 = 10

    /// `PATCH` (§10.5): a new push token (guardian-bash: `push_credentials` is always required), and optionally a
    /// new identifier or name.
    func updateDevice(_ id: String, authorization: String?, body: GuardianDeviceUpdateBody, now: Date) async
        throws(GuardianFailure) -> GuardianDeviceAccountReply {
        do throws(GuardianFailure) {
            let auth = try await authorize(id, authorization: authorization, now: now)
            guard let credentials = body.pushCredentials else {
                throw GuardianFailure.invalidBody("push_credentials is required")
            }
            try Self.checkPushCredentials(credentials)
            // The JWT was checked across an await: the device may have gone meanwhile.
            guard var device = devices[id], !device.record.deleted else { throw GuardianFailure.deviceNotFound(id) }
            let old = device.record.pushToken
            device.record.pushToken = credentials.token
            device.record.service = credentials.service
            if let identifier = body.identifier, !identifier.isEmpty { device.record.identifier = identifier }
            if let name = body.name, !name.isEmpty { device.record.name = name }
            device.record.tokenChanges.append(.init(token: credentials.token, auth: auth, at: now))
            devices[id] = device
            events.emit("guardian: \(id) moved to push token \(SimEvents.short(credentials.token)) "
                + "(was \(SimEvents.short(old)); \(auth))")
            return GuardianDeviceAccountReply(id: id, identifier: device.record.identifier, name: device.record.name,
                                              pushCredentials: credentials)
        } catch {
            events.emit("guardian: refused a device-account update of \(id): \(error.message)")
            throw error
        }
    }

    /// `DELETE` (§10.5): unenroll. The device stays listed as deleted; pushes to it are refused from then on.
    func deleteDevice(_ id: String, authorization: String?, now: Date) async throws(GuardianFailure) {
        do throws(GuardianFailure) {
            let auth = try await authorize(id, authorization: authorization, now: now)
            guard devices[id]?.record.deleted == false else { throw GuardianFailure.deviceNotFound(id) }
            devices[id]?.record.deleted = true
            devices[id]?.record.deletedBy = auth
            events.emit("guardian: \(id) unenrolled (\(auth))")
        } catch {
            events.emit("guardian: refused to unenroll \(id): \(error.message)")
            throw error
        }
    }

    /// The SDKs' signed JWT (`jwt`), or the enrollment's device token (`device_token`, deprecated but what
    /// guardian-bash sends). Returns which.
    private func authorize(_ id: String, authorization: String?, now: Date) async throws(GuardianFailure) -> String {
        guard let device = devices[id], !device.record.deleted else { throw .deviceNotFound(id) }
        guard let bearer = Self.bearer(authorization) else { throw .badBearer("Authorization must be Bearer <JWT>") }
        if bearer == device.deviceToken { return "device_token" }
        let claims: GuardianDeviceAccountClaims
        do {
            claims = try await GuardianServer.verifyDeviceAccountJWT(
                bearer, publicKey: GuardianServer.publicKey(device.publicKey))
        } catch {
            throw .invalidToken("the bearer is neither the device token nor a JWT under the device key: \(error)")
        }
        let record = device.record
        let now = Int64(now.timeIntervalSince1970)
        let problem: String? =
            if claims.aud != record.apiBase + "/api/device-accounts" {
                "aud is '\(claims.aud)', not '\(record.apiBase)/api/device-accounts'"
            } else if claims.iss != id {
                "iss is '\(claims.iss)', not the enrollment id '\(id)'"
            } else if claims.sub != record.userId {
                "sub is '\(claims.sub)', not the user id '\(record.userId)'"
            } else if claims.exp <= claims.iat || claims.exp - claims.iat > Self.deviceAccountJWTLifetime {
                "exp - iat is \(claims.exp - claims.iat) s, not 1 to \(Self.deviceAccountJWTLifetime)"
            } else if claims.iat > now + Self.clockSkew || claims.exp + Self.clockSkew < now {
                "the JWT is not valid now (iat \(claims.iat), exp \(claims.exp), now \(now))"
            } else { nil }
        if let problem { throw .invalidToken("device-account JWT: \(problem)") }
        return "jwt"
    }
}
