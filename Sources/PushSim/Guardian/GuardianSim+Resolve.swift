import Foundation
import PushAgentCore

extension GuardianSim {
    /// Both SDKs give the answer JWT thirty seconds (§10.4); Guardian's own limit is unpublished, so twice that.
    static let maximumAnswerLifetime: Int64 = 60
    /// The answer's claims, all of them: anything else in the payload is not what the SDKs send.
    static let answerClaimNames: Set<String> = [
        "iat", "exp", "aud", "iss", "sub", "auth0_guardian_method", "auth0_guardian_accepted", "auth0_guardian_reason",
    ]

    /// `POST <api>/api/resolve-transaction` (§10.4): the bearer is a pending transaction's `txtkn`; the
    /// `challenge_response` JWT must verify under the device's key and carry exactly the claims the SDKs send, for
    /// this transaction, now. Every call is recorded, refused or not; only the first good one settles the transaction.
    func resolve(apiBase: String, authorization: String?, body: Result<GuardianResolveBody, JSONReply.BadBody>,
                 now: Date) async throws(GuardianFailure) {
        guard let bearer = Self.bearer(authorization) else {
            return try await refuse(nil, .badBearer("Authorization must be Bearer <txtkn>"), now: now)
        }
        guard let id = transactionsByToken[bearer], let transaction = transactions[id] else {
            return try await refuse(nil, .invalidToken("the bearer is not a transaction token the sim issued"), now: now)
        }
        let jwt: String
        switch body {
        case .success(let resolve): jwt = resolve.challengeResponse
        case .failure(let bad): return try await refuse(id, .invalidBody(bad.message), now: now)
        }
        if transaction.state != .pending {
            return try await refuse(id, .transactionNotFound("the transaction was already \(transaction.state.rawValue)"),
                                    now: now)
        }
        if transaction.unknownDevice {
            return try await refuse(id, .transactionNotFound("the push named an enrollment id no device has"), now: now)
        }
        if now > transaction.expiresAt {
            return try await refuse(id, .transactionNotFound("the transaction expired at \(transaction.expiresAt)"), now: now)
        }
        guard let device = devices[transaction.device], !device.record.deleted else {
            return try await refuse(id, .deviceNotFound(transaction.device), now: now)
        }
        if apiBase != device.record.apiBase {
            return try await refuse(id, .invalidToken("posted to \(apiBase), not the device's API \(device.record.apiBase)"),
                                    now: now)
        }
        let claims: GuardianAnswerClaims
        do {
            claims = try await GuardianServer.verifyAnswer(jwt, publicKey: GuardianServer.publicKey(device.publicKey))
        } catch {
            return try await refuse(id, .invalidBody("challenge_response does not verify: \(error)"), now: now)
        }
        if let problem = Self.problem(claims, jwt: jwt, transaction: transaction, device: device.record, now: now) {
            return try await refuse(id, .invalidBody("challenge_response: \(problem)"), claims: claims, now: now)
        }
        // Checked across awaits: a concurrent resolve of the same transaction may have settled it meanwhile.
        guard transactions[id]?.state == .pending else {
            return try await refuse(id, .transactionNotFound("the transaction was already resolved"), now: now)
        }
        transactions[id]?.state = claims.accepted ? .accepted : .rejected
        transactions[id]?.reason = claims.reason
        transactions[id]?.verified = true
        let what = claims.accepted ? "APPROVE" : "DENY" + (claims.reason.map { " (reason \($0))" } ?? "")
        events.emit("guardian: received \(what) for \(id) — JWT verified")
        await record(id, claims: claims, verified: true, status: 204, error: nil, now: now)
    }

    /// Every claim as Guardian would check it: addressed to this endpoint, from the enrolled device, for this
    /// transaction's challenge, a push answer, a reason only on a rejection, fresh, and no claim the SDKs do not send.
    private static func problem(_ claims: GuardianAnswerClaims, jwt: String, transaction: Transaction,
                                device: API.Device, now: Date) -> String? {
        let audience = device.apiBase + "/api/resolve-transaction"
        let now = Int64(now.timeIntervalSince1970)
        if claims.aud != audience { return "aud is '\(claims.aud)', not '\(audience)'" }
        if claims.iss != device.identifier { return "iss is '\(claims.iss)', not the device identifier '\(device.identifier)'" }
        if claims.sub != transaction.challenge { return "sub is '\(claims.sub)', not the transaction's challenge" }
        if claims.method != "push" { return "auth0_guardian_method is '\(claims.method)', not 'push'" }
        if claims.accepted, claims.reason != nil { return "auth0_guardian_reason on an acceptance" }
        if claims.exp <= claims.iat || claims.exp - claims.iat > maximumAnswerLifetime {
            return "exp - iat is \(claims.exp - claims.iat) s, not 1 to \(maximumAnswerLifetime)"
        }
        if claims.iat > now + clockSkew || claims.exp + clockSkew < now {
            return "the JWT is not valid now (iat \(claims.iat), exp \(claims.exp), now \(now))"
        }
        let names = payloadClaimNames(jwt)
        if let extra = names.subtracting(answerClaimNames).sorted().first { return "unexpected claim '\(extra)'" }
        return nil
    }

    /// The payload's member names; called only after the signature verified.
    private static func payloadClaimNames(_ jwt: String) -> Set<String> {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = LenientBase64.decode(String(parts[1])),
              let object = try? JSONSerialization.jsonObject(with: payload) as? [String: Any] else { return [] }
        return Set(object.keys)
    }

    private func refuse(_ id: String?, _ failure: GuardianFailure, claims: GuardianAnswerClaims? = nil,
                        now: Date) async throws(GuardianFailure) {
        events.emit("guardian: refused an answer for \(id ?? "an unknown transaction"): \(failure.message)")
        await record(id, claims: claims, verified: false, status: failure.status, error: failure.message, now: now)
        throw failure
    }

    private func record(_ id: String?, claims: GuardianAnswerClaims?, verified: Bool, status: Int, error: String?,
                        now: Date) async {
        resolutionCount += 1
        let resolution = API.Resolution(seq: resolutionCount, transactionId: id, accepted: claims?.accepted,
                                        reason: claims?.reason, verified: verified, status: status, error: error, at: now)
        if let id { transactions[id]?.resolutions.append(resolution) }
        await resolutions.append { _ in resolution }
    }
}
