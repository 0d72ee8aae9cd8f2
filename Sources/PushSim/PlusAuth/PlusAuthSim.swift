import Foundation
import PushAgentCore

/// The PlusAuth tenant the simulator plays: issued QR codes, enrolled devices (with the key pairs they upload),
/// pushes sent, answers received.
actor PlusAuthSim: SimRoleState {
    typealias API = SimAdminAPI.PlusAuth

    static let enrollPath = "/push-authenticator/enroll"
    /// The docs name both resolve paths (protocols.md §2.6.1); the sim serves both.
    static let resolvePath = "/push-authenticator/resolve"
    static let resolveChallengePath = "/push-authenticator/resolve-challenge"

    struct Device {
        var registration: API.Registration
        var privateKey: PlusAuthJWK
        var algorithm: PlusAuthAlgorithm
    }

    struct SentPush {
        var pushId: String
        var account: String
        var contextToken: String
        var kind: PlusAuthChallenge.Kind
        var values: [String]?
        var correctValue: String?
        var expiresAt: Date
        var jwt: String
        var ttl: Int
        var answered = false
    }

    let context: SimRoleContext
    var publicURL = ""
    /// Issued QR codes by their `context_token`, each good for one enrollment: (account, issuer).
    var enrollments: [String: (account: String, issuer: String)] = [:]
    var devices: [String: Device] = [:]
    var pushes: [String: SentPush] = [:]
    let answers = AnswerLog<API.Answer>()

    init(context: SimRoleContext) {
        self.context = context
    }

    // MARK: Admin API

    func enrollmentURI(_ request: API.EnrollURIRequest) throws(AdminFailure) -> String {
        let (account, issuer) = try request.label()
        let hashName = request.algorithm ?? "SHA256"
        guard let hash = OTPAlgorithm(rawValue: hashName.lowercased()) else {
            throw .invalidArgument("algorithm must be SHA1, SHA256 or SHA512, not '\(hashName)'")
        }
        let totp: TOTPParameters
        do {
            totp = try TOTPParameters(secret: SimRandom.bytes(20), algorithm: hash, digits: request.digits ?? 6,
                                      period: request.period ?? 30)
        } catch {
            throw .invalidArgument(error.description)
        }
        let token = SimRandom.bytes(32).base64URLUnpadded
        enrollments[token] = (account, issuer)
        events.emit("issued an enrollment URI for \(account)")
        return PlusAuthEnrollmentURI(issuer: issuer, accountName: account, totp: totp, contextToken: token,
                                     enrollmentURL: publicURL + Self.enrollPath).uriString
    }

    func registrationList() -> [API.Registration] {
        devices.values.map(\.registration).sorted { $0.registeredAt < $1.registeredAt }
    }

    func push(_ request: API.PushRequest, now: Date) async throws(AdminFailure) -> API.PushResponse {
        let push: SentPush
        if let id = request.pushId, let sent = pushes[id] {
            push = sent
        } else {
            push = try await newPush(request, now: now)
            pushes[push.pushId] = push
        }
        guard let device = devices[push.account] else {
            throw AdminFailure(status: 404, code: "not_found", message: "no device enrolled for account '\(push.account)'")
        }
        do {
            try await relay.send(token: device.registration.deviceToken, data: ["context": push.jwt], ttlSeconds: push.ttl)
        } catch {
            throw AdminFailure(status: 502, code: "upstream", message: error.description)
        }
        let value = push.correctValue.map { " (correct value \($0))" } ?? ""
        events.emit("sent \(push.kind.rawValue) push \(push.pushId) to \(push.account)\(value)")
        return API.PushResponse(pushId: push.pushId, account: push.account, type: push.kind.rawValue, values: push.values,
                                correctValue: push.correctValue, expiresAt: push.expiresAt)
    }

    private func newPush(_ request: API.PushRequest, now: Date) async throws(AdminFailure) -> SentPush {
        let account = try account(named: request.account)
        guard let device = devices[account] else {
            throw AdminFailure(status: 404, code: "not_found", message: "no device enrolled for account '\(account)'")
        }
        let typeName = request.type ?? "code"
        guard let kind = PlusAuthChallenge.Kind(rawValue: typeName) else {
            throw .invalidArgument("type must be code or prompt, not '\(typeName)'")
        }
        let ttl = request.ttl ?? 120
        guard ttl > 0 else { throw .invalidArgument("ttl must be positive") }
        let resolvePath = request.resolvePath ?? Self.resolvePath
        guard resolvePath.hasPrefix("/") else { throw .invalidArgument("resolve_path must start with '/'") }
        let issuedAt = request.expired == true ? now.addingTimeInterval(-600 - TimeInterval(ttl)) : now
        let values = kind == .code ? SimRandom.distinctNumbers(3) : nil
        let token = SimRandom.bytes(32).base64URLUnpadded
        var claims = PlusAuthContextClaims(
            exp: (issuedAt.timeIntervalSince1970 + TimeInterval(ttl)).rounded(.down),
            iat: issuedAt.timeIntervalSince1970.rounded(.down), contextToken: token, resolveURL: publicURL + resolvePath,
            settings: .init(bindSim: request.bindSim ?? false),
            info: PlusAuthServer.info(application: request.application ?? device.registration.issuer, user: account,
                                      ip: "203.0.113.7", city: "Istanbul", country: "TUR",
                                      browser: ("Firefox", "121.0"), os: ("Ubuntu", "22.04")),
            type: kind.rawValue, values: values)
        var jwt: String
        do {
            jwt = try await PlusAuthServer.signContext(claims, privateKey: device.privateKey, algorithm: device.algorithm)
        } catch {
            throw AdminFailure(status: 500, code: "internal", message: "cannot sign the context: \(error)")
        }
        if request.tampered == true {
            // Same header and signature over a different payload: what an attacker on the path could send.
            claims.info = .object(["application": .string("Tampered")])
            let parts = jwt.split(separator: ".")
            let payload = (try? SimAdminAPI.encoder.encode(claims))?.base64URLUnpadded ?? ""
            jwt = "\(parts[0]).\(payload).\(parts[2])"
        }
        return SentPush(pushId: "pa_" + SimRandom.bytes(9).base64URLUnpadded, account: account, contextToken: token,
                        kind: kind, values: values, correctValue: values?.randomElement(),
                        expiresAt: Date(timeIntervalSince1970: claims.exp ?? 0), jwt: jwt, ttl: ttl)
    }

    func account(named name: String?) throws(AdminFailure) -> String {
        if let name { return name }
        guard let latest = registrationList().last else {
            throw AdminFailure(status: 409, code: "conflict", message: "no device has enrolled yet; enroll one first")
        }
        return latest.account
    }
}
