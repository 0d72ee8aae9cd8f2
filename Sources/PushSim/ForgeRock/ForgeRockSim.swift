import Foundation
import PushAgentCore

/// The AM the simulator plays: issued enrollments, registered devices, pushes sent, answers received.
actor ForgeRockSim: SimRoleState {
    /// What the sim puts in `l` and expects back as `Cookie`, as AM's load balancer would.
    static let cookie = "amlbcookie=01"
    static let endpointPath = "/openam/json/push/sns/message"

    private struct Enrollment {
        var account: String
        var issuer: String
        var secret: Data
        var challenge: Data
    }

    private struct SentPush {
        var account: String
        var challenge: Data
        var expiresAt: Date
        var correctNumber: String?
        var numbers: [String]?
        var token: String
        var ttl: Int
        var answered = false
    }

    let context: SimRoleContext
    var publicURL = ""
    private var enrollments: [String: Enrollment] = [:]
    private(set) var registrations: [String: (registration: SimAdminAPI.Registration, secret: Data)] = [:]
    private var pushes: [String: SentPush] = [:]
    /// AM's endpoints answer 503 while this is set (`POST /sim/forgerock/outage`).
    private(set) var isDown = false
    let answers = AnswerLog<SimAdminAPI.Answer>()

    init(context: SimRoleContext) {
        self.context = context
    }

    // MARK: Admin API

    func enrollmentURI(_ request: SimAdminAPI.EnrollURIRequest) throws(AdminFailure) -> String {
        let (account, issuer) = try request.label()
        let enrollment = Enrollment(account: account, issuer: issuer, secret: SimRandom.bytes(32),
                                    challenge: SimRandom.bytes(32))
        let messageId = "REGISTER:\(UUID().uuidString.lowercased())\(Self.millis(Date()))"
        let totp = request.totp == true ? try? TOTPParameters(secret: SimRandom.bytes(20)) : nil
        let uri = ForgeRockEnrollmentURI(
            mechanism: totp == nil ? .push : .totp, issuer: issuer, accountName: account,
            registrationURL: publicURL + Self.endpointPath + "?_action=register",
            authenticationURL: publicURL + Self.endpointPath + "?_action=authenticate",
            sharedSecret: enrollment.secret, challenge: enrollment.challenge, cookie: Self.cookie,
            registrationMessageId: messageId, backgroundColor: "#519387", totp: totp)
        enrollments[messageId] = enrollment
        events.emit("issued an enrollment URI for \(account) (\(messageId))")
        return uri.uriString
    }

    func setDown(_ down: Bool) {
        isDown = down
        events.emit(down ? "AM is down: its endpoints answer 503" : "AM is up again")
    }

    func registrationList() -> [SimAdminAPI.Registration] {
        registrations.values.map(\.registration).sorted { $0.registeredAt < $1.registeredAt }
    }

    func push(_ request: SimAdminAPI.PushRequest, now: Date) async throws(AdminFailure) -> SimAdminAPI.PushResponse {
        let account = try account(named: request.account)
        guard let (registration, secret) = registrations[account] else {
            throw AdminFailure(status: 404, code: "not_found", message: "no device registered for account '\(account)'")
        }
        let messageId = request.messageId ?? "AUTHENTICATE:\(UUID().uuidString.lowercased())\(Self.millis(now))"
        let push: SentPush
        if let sent = pushes[messageId] {
            push = sent
        } else {
            push = try await newPush(request, account: account, registration: registration, secret: secret, now: now)
            pushes[messageId] = push
        }
        let sendStarted = MonotonicTime.nanoseconds()
        do {
            try await relay.send(token: registration.deviceToken,
                                 data: ["messageId": messageId, "message": push.token], ttlSeconds: push.ttl)
        } catch {
            throw AdminFailure(status: 502, code: "upstream", message: error.description)
        }
        let number = push.correctNumber.map { " (correct number \($0))" } ?? ""
        events.emit("sent push \(messageId) to \(account)\(number)")
        return SimAdminAPI.PushResponse(messageId: messageId, account: account, numbers: push.numbers,
                                        correctNumber: push.correctNumber, sendStartedNs: sendStarted)
    }

    func account(named name: String?) throws(AdminFailure) -> String {
        if let name { return name }
        guard let latest = registrationList().last else {
            throw AdminFailure(status: 409, code: "conflict", message: "no device has registered yet; enroll one first")
        }
        return latest.account
    }

    private func newPush(_ request: SimAdminAPI.PushRequest, account: String, registration: SimAdminAPI.Registration,
                         secret: Data, now: Date) async throws(AdminFailure) -> SentPush {
        let typeName = request.type ?? "default"
        guard let type = ForgeRockNotification.PushType(rawValue: typeName) else {
            throw .invalidArgument("type must be default, challenge or biometric, not '\(typeName)'")
        }
        let ttl = request.ttl ?? 120
        guard ttl > 0 else { throw .invalidArgument("ttl must be positive") }
        let issuedAt = request.issuedAtMs.map { Date(timeIntervalSince1970: TimeInterval($0) / 1000) } ?? now
        let numbers = type == .challenge ? SimRandom.distinctNumbers(3) : nil
        let challenge = SimRandom.bytes(32)
        let claims = ForgeRockServer.notificationClaims(
            challenge: challenge, mechanismUid: registration.mechanismUid, ttlSeconds: ttl, cookie: Self.cookie,
            issuedAt: issuedAt, pushType: type, numbers: numbers, message: request.message,
            contextInfo: #"{"userAgent":"pushsim","platform":"Linux"}"#, userId: account)
        let token: String
        do {
            token = try await ForgeRockServer.signNotification(claims, secret: secret)
        } catch {
            throw AdminFailure(status: 500, code: "internal", message: "cannot sign the push: \(error)")
        }
        return SentPush(account: account, challenge: challenge, expiresAt: issuedAt.addingTimeInterval(TimeInterval(ttl)),
                        correctNumber: numbers?.randomElement(), numbers: numbers, token: token, ttl: ttl)
    }

    // MARK: AM endpoints

    /// `?_action=register`: AM's check of the JWT and the challenge response.
    func register(_ body: ForgeRockMessageBody, now: Date) async throws(ForgeRockServer.Refusal) {
        guard let enrollment = enrollments[body.messageId] else {
            throw .init(message: "unknown registration message id '\(body.messageId)'")
        }
        let claims = try await ForgeRockServer.verifyRegistration(body.jwt, secret: enrollment.secret,
                                                                  challenge: enrollment.challenge)
        // One registration per QR code, as AM's message ids are single-use.
        guard enrollments.removeValue(forKey: body.messageId) != nil else {
            throw .init(message: "registration message id '\(body.messageId)' was already used")
        }
        let registration = SimAdminAPI.Registration(
            account: enrollment.account, issuer: enrollment.issuer, mechanismUid: claims.mechanismUid,
            deviceToken: claims.deviceId, deviceName: claims.deviceName, registeredAt: now)
        registrations[enrollment.account] = (registration, enrollment.secret)
        events.emit("\(enrollment.account) registered device \(SimEvents.short(claims.deviceId)) (\(claims.deviceName))")
    }

    /// `?_action=refresh`: the mechanism's pushes go to the new token from now on.
    func refresh(_ body: ForgeRockTokenUpdate.Body) async throws(ForgeRockServer.Refusal) {
        guard let (account, (registration, secret)) = registrations.first(where: { $0.value.registration.mechanismUid == body.mechanismUid }) else {
            throw .init(message: "unknown mechanism uid '\(body.mechanismUid)'")
        }
        let claims = try await ForgeRockServer.verifyTokenUpdate(body, secret: secret)
        registrations[account]?.registration.deviceToken = claims.deviceId
        events.emit("\(account) moved to device token \(SimEvents.short(claims.deviceId)) (was \(SimEvents.short(registration.deviceToken)))")
    }

    /// `?_action=authenticate`: verifies like AM, then records the answer whatever the outcome.
    func authenticate(_ body: ForgeRockMessageBody, now: Date) async throws(ForgeRockServer.Refusal) {
        guard let push = pushes[body.messageId], let secret = registrations[push.account]?.secret else {
            await record(body.messageId, account: nil, claims: nil, .rejected, error: "unknown message id")
            throw .init(message: "unknown message id '\(body.messageId)'")
        }
        let claims: ForgeRockAnswerClaims
        do {
            claims = try await ForgeRockServer.verifyAnswer(body.jwt, secret: secret, challenge: push.challenge)
        } catch {
            await record(body.messageId, account: push.account, claims: nil, .rejected, error: error.message)
            throw error
        }
        let denied = claims.deny == true
        var problem: String?
        if pushes[body.messageId]?.answered == true {
            problem = "the push was already answered"
        } else if now > push.expiresAt {
            problem = "the push expired"
        } else if !denied, let correct = push.correctNumber, claims.challengeResponse != correct {
            problem = "wrong number \(claims.challengeResponse.map { "'\($0)'" } ?? "(none)")"
        }
        if let problem {
            await record(body.messageId, account: push.account, claims: claims, .rejected, error: problem)
            throw .init(message: problem)
        }
        pushes[body.messageId]?.answered = true
        await record(body.messageId, account: push.account, claims: claims, denied ? .denied : .approved)
    }

    /// An answer refused before its JWT was looked at (bad headers).
    func refuse(_ messageId: String, reason: String) async {
        await record(messageId, account: pushes[messageId]?.account, claims: nil, .rejected, error: reason)
    }

    /// `claims` are the verified answer, when it verified: the event line then says what was attempted.
    private func record(_ messageId: String, account: String?, claims: ForgeRockAnswerClaims?,
                        _ outcome: SimAdminAPI.Outcome, error: String? = nil) async {
        let what = claims.map { $0.deny == true ? "DENY" : "APPROVE" } ?? "an answer"
        let number = claims?.deny == true ? nil : claims?.challengeResponse
        let verdict = error.map { " — refused: \($0)" } ?? " — signature verified"
        events.emit("received \(what) for \(messageId)\(number.map { " (number \($0))" } ?? "")\(verdict)")
        await answers.append {
            .init(seq: $0, messageId: messageId, account: account, outcome: outcome, number: number,
                  verified: claims != nil, error: error)
        }
    }

    // MARK: Helpers

    static func millis(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }
}
