import Foundation
import PushAgentCore

extension GuardianSim {
    /// `POST <api>/api/enroll` (§10.2): `Authorization: Ticket id="…"` must be an issued, unused ticket; the body one
    /// device with a push token and an RSA-2048 (or larger) RS256 public JWK. The ticket is spent only on success.
    func enroll(apiBase: String, authorization: String?, body: Result<GuardianEnrollmentBody, JSONReply.BadBody>,
                now: Date) throws(GuardianFailure) -> GuardianEnrollmentReply {
        do throws(GuardianFailure) {
            return try enrolled(apiBase: apiBase, authorization: authorization, body: body, now: now)
        } catch {
            events.emit("guardian: refused an enrollment: \(error.message)")
            throw error
        }
    }

    private func enrolled(apiBase: String, authorization: String?, body: Result<GuardianEnrollmentBody, JSONReply.BadBody>,
                          now: Date) throws(GuardianFailure) -> GuardianEnrollmentReply {
        guard let ticketId = Self.ticket(authorization) else {
            throw .badBearer(#"Authorization must be Ticket id="<enrollment_tx_id>""#)
        }
        guard let ticket = tickets[ticketId] else {
            throw GuardianFailure(status: 401, errorCode: "enrollment_transaction_not_found",
                                  message: "the ticket is not an issued, unused enrollment_tx_id")
        }
        let enrollment: GuardianEnrollmentBody
        switch body {
        case .success(let decoded): enrollment = decoded
        case .failure(let bad): throw .invalidBody(bad.message)
        }
        try Self.check(enrollment)
        if devices.values.contains(where: { !$0.record.deleted && $0.record.identifier == enrollment.identifier }) {
            throw GuardianFailure(status: 409, errorCode: "enrollment_conflict",
                                  message: "a device with identifier '\(enrollment.identifier)' is already enrolled")
        }
        tickets[ticketId] = nil
        let userId = userIds[ticket.account] ?? "auth0|" + SimRandom.bytes(12).map { String(format: "%02x", $0) }.joined()
        userIds[ticket.account] = userId
        let token = SimRandom.bytes(24).base64URLUnpadded
        let record = API.Device(
            id: ticket.deviceId, account: ticket.account, issuer: ticket.issuer, identifier: enrollment.identifier,
            name: enrollment.name, service: enrollment.pushCredentials.service, pushToken: enrollment.pushCredentials.token,
            userId: userId, apiBase: apiBase, enrolledAt: now, tokenChanges: [], deleted: false)
        devices[ticket.deviceId] = Device(record: record, publicKey: enrollment.publicKey, deviceToken: token)
        events.emit("guardian: \(ticket.account) enrolled device \(ticket.deviceId) (\(enrollment.name), push token "
            + "\(SimEvents.short(enrollment.pushCredentials.token)))")
        return GuardianEnrollmentReply(
            id: ticket.deviceId, url: publicURL, issuer: ticket.issuer, userId: userId, token: token,
            totp: ticket.totp.map {
                .init(secret: Base32.encode($0.secret), algorithm: $0.algorithm.rawValue.uppercased(),
                      digits: $0.digits, period: $0.period)
            })
    }

    /// What Guardian needs to push to the device and check its answers.
    private static func check(_ body: GuardianEnrollmentBody) throws(GuardianFailure) {
        guard !body.identifier.isEmpty, !body.name.isEmpty else {
            throw .invalidBody("identifier and name must not be empty")
        }
        try checkPushCredentials(body.pushCredentials)
        let key = body.publicKey
        guard key.kty == "RSA", key.alg == "RS256", key.use == "sig" else {
            throw .invalidBody("public_key must be an RSA RS256 signing JWK (kty RSA, alg RS256, use sig)")
        }
        guard (try? GuardianServer.publicKey(key)) != nil, let modulus = LenientBase64.decode(key.n) else {
            throw .invalidBody("public_key is not a usable RSA public key")
        }
        // Both SDKs make RSA-2048 keys; the two's-complement zero byte some send does not count.
        let bits = modulus.drop { $0 == 0 }.count * 8
        guard bits >= 2048 else { throw .invalidBody("public_key is RSA-\(bits); at least 2048 bits are required") }
    }

    static func checkPushCredentials(_ credentials: GuardianPushCredentials) throws(GuardianFailure) {
        guard ["GCM", "APNS"].contains(credentials.service) else {
            throw .invalidBody("push_credentials.service must be GCM or APNS, not '\(credentials.service)'")
        }
        guard !credentials.token.isEmpty else { throw .invalidBody("push_credentials.token must not be empty") }
    }

    /// `Ticket id="<ticket>"`, the scheme in any case.
    static func ticket(_ authorization: String?) -> String? {
        guard let authorization, authorization.lowercased().hasPrefix("ticket ") else { return nil }
        let parameter = authorization.dropFirst("ticket ".count).trimmingCharacters(in: .whitespaces)
        guard parameter.hasPrefix(#"id=""#), parameter.hasSuffix(#"""#), parameter.count > 5 else { return nil }
        return String(parameter.dropFirst(4).dropLast())
    }

    static func bearer(_ authorization: String?) -> String? {
        guard let authorization, authorization.lowercased().hasPrefix("bearer ") else { return nil }
        let token = authorization.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}
