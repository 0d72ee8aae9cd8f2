import Foundation
import PushAgentCore

/// PlusAuth's endpoints refuse with OAuth-style error codes.
extension AdminFailure {
    static func invalidRequest(_ message: String) -> AdminFailure {
        AdminFailure(status: 400, code: "invalid_request", message: message)
    }

    static func invalidToken(_ message: String) -> AdminFailure {
        AdminFailure(status: 401, code: "invalid_token", message: message)
    }
}

extension PlusAuthSim {
    /// `POST /push-authenticator/enroll`: the bearer must be an unused QR `context_token`; the body must carry one
    /// usable key pair, the device id and a push token.
    func enroll(bearer: String?, body: PlusAuthEnrollmentBody, now: Date) async throws(AdminFailure) {
        guard let bearer, let enrollment = enrollments[bearer] else {
            throw .invalidToken("the bearer is not an unused enrollment context_token")
        }
        let algorithm: PlusAuthAlgorithm
        do {
            algorithm = try await PlusAuthServer.verifyEnrollment(body)
        } catch {
            throw .invalidRequest(error.message)
        }
        // One enrollment per QR code.
        guard enrollments.removeValue(forKey: bearer) != nil else {
            throw .invalidToken("the enrollment context_token was already used")
        }
        let registration = API.Registration(
            account: enrollment.account, issuer: enrollment.issuer, algorithm: algorithm.rawValue,
            keyId: body.publicKey.kid, deviceIdentifier: body.deviceIdentifier,
            deviceToken: body.credentials.deviceToken, service: body.credentials.service, registeredAt: now)
        devices[enrollment.account] = Device(registration: registration, privateKey: body.privateKey, algorithm: algorithm)
        events.emit("\(enrollment.account) enrolled device \(SimEvents.short(body.credentials.deviceToken)) (\(algorithm.rawValue) key)")
    }

    /// `POST /push-authenticator/resolve` (or `…/resolve-challenge`): the bearer names the push; the device JWT must
    /// verify under the enrolled key and algorithm and carry a fitting answer. Every answer is recorded.
    func resolve(endpoint: String, bearer: String?, body: PlusAuthResolveBody, now: Date) async throws(AdminFailure) {
        guard let bearer, let push = pushes.values.first(where: { $0.contextToken == bearer }) else {
            await record(endpoint: endpoint, push: nil, claims: nil, .rejected, error: "unknown context token")
            throw .invalidToken("the bearer is not a pending push's context_token")
        }
        guard let device = devices[push.account], device.registration.deviceIdentifier == body.deviceIdentifier else {
            await record(endpoint: endpoint, push: push, claims: nil, .rejected, error: "unknown device_identifier")
            throw .invalidRequest("device_identifier is not the enrolled device's")
        }
        let claims: PlusAuthAnswerClaims
        do {
            claims = try await PlusAuthServer.verifyAnswer(body.context, publicKey: device.privateKey.publicKey,
                                                           algorithm: device.algorithm)
        } catch {
            await record(endpoint: endpoint, push: push, claims: nil, .rejected, error: error.message)
            throw .invalidRequest(error.message)
        }
        let (outcome, problem) = Self.judge(claims, push: push, now: now)
        if let problem {
            await record(endpoint: endpoint, push: push, claims: claims, .rejected, error: problem)
            throw .invalidRequest(problem)
        }
        pushes[push.pushId]?.answered = true
        await record(endpoint: endpoint, push: push, claims: claims, outcome)
    }

    /// As the tenant would judge a verified answer.
    private static func judge(_ claims: PlusAuthAnswerClaims, push: SentPush, now: Date) -> (API.Outcome, String?) {
        if push.answered { return (.rejected, "the push was already answered") }
        if now > push.expiresAt { return (.rejected, "the push expired") }
        if let token = claims.contextToken, token != push.contextToken {
            return (.rejected, "the answer's context_token is another push's")
        }
        if let reason = claims.rejectReason {
            guard ["ignore", "fraud_suspicion"].contains(reason) else {
                return (.rejected, "reject_reason must be ignore or fraud_suspicion, not '\(reason)'")
            }
            guard push.kind == .code || claims.response == "rejected" else {
                return (.rejected, "a prompt rejection needs response 'rejected'")
            }
            return (.denied, nil)
        }
        switch push.kind {
        case .code:
            guard let value = claims.selectedValue else { return (.rejected, "selected_value is missing") }
            return value == push.correctValue ? (.approved, nil) : (.rejected, "wrong value '\(value)'")
        case .prompt:
            switch claims.response {
            case "accepted"?: return (.approved, nil)
            case "rejected"?: return (.rejected, "a rejection needs reject_reason")
            case let other: return (.rejected, "response must be accepted or rejected, not '\(other ?? "(missing)")'")
            }
        }
    }

    private func record(endpoint: String, push: SentPush?, claims: PlusAuthAnswerClaims?, _ outcome: API.Outcome,
                        error: String? = nil) async {
        let what = claims.map { $0.rejectReason != nil ? "REJECT (\($0.rejectReason ?? ""))" : "ACCEPT" } ?? "an answer"
        let value = claims?.selectedValue.map { " (value \($0))" } ?? ""
        let verdict = error.map { " — refused: \($0)" } ?? " — signature verified"
        events.emit("received \(what) for \(push?.pushId ?? "an unknown push") at \(endpoint)\(value)\(verdict)")
        await answers.append {
            .init(seq: $0, pushId: push?.pushId, account: push?.account, outcome: outcome, value: claims?.selectedValue,
                  rejectReason: claims?.rejectReason, verified: claims != nil, endpoint: endpoint, error: error)
        }
    }
}
