import Foundation
import Logging
import PushAgentCore
import PushAgentStore

/// A server that speaks privacyIDEA's push dialect under its own provider name: privacyIDEA itself, or a fork
/// (eduMFA) whose module is this one with its own description.
protocol PrivacyIDEAFamily: Sendable {
    static var descriptor: ProviderDescription { get }
}

enum PrivacyIDEAItself: PrivacyIDEAFamily {
    static var descriptor: ProviderDescription { PrivacyIDEAProvider.description }
}

typealias PrivacyIDEAModule = PrivacyIDEADialectModule<PrivacyIDEAItself>

/// privacyIDEA push tokens: accounts are found by token serial, challenges verified with the server key the token
/// received at enrollment, answers signed with the device key.
struct PrivacyIDEADialectModule<Family: PrivacyIDEAFamily>: ProviderModule {
    let context: ProviderContext
    /// Poll-only tokens' challenges, fetched from their servers.
    let polling: PrivacyIDEAPollSource

    init(context: ProviderContext) {
        self.context = context
        polling = PrivacyIDEAPollSource(provider: Family.descriptor, store: context.store, http: context.http,
                                        config: context.config, logger: context.logger)
    }

    var descriptor: ProviderDescription { Family.descriptor }
    static var settingsSection: (any ConfigSection.Type)? { PrivacyIDEASettings.self }
    var credentialsType: any Decodable.Type { PrivacyIDEACredentials.self }
    var pushSources: [any PushSource] { [polling] }

    func effect(for data: [String: String], receivedAt: Date) async throws(PushRejection) -> PushEffect {
        let serial = try PrivacyIDEAPush.peekSerial(data)
        let stored = try await store.account(of: provider, namedByPush: serial,
                                             unknown: "no \(descriptor.displayName) token with serial \(serial)")
        let serverKey: PrivacyIDEAServerKey
        do { serverKey = try Self.credentials(of: stored).serverKey() }
        catch { throw PushRejection(.malformed, "stored credentials of \(stored.account.id) are unreadable") }
        let challenge = try PrivacyIDEAPush.verify(data, serverKey: serverKey, receivedAt: receivedAt)
        return try .approval {
            try challenge.approvalDraft(provider: provider, accountId: stored.account.id, accountName: stored.account.name)
        }
    }

    func enroll(_ parsed: PrivacyIDEAEnrollmentURI, name: String?, device: DeviceIdentity, deviceName: String) async throws
        -> EnrolledAccount {
        if !parsed.sslVerify {
            logger.warning("\(descriptor.displayName) token \(parsed.serial): the QR code says sslverify=0, so TLS certificates of \(ProviderHTTP.host(parsed.registrationURL)) are NOT checked for this token",
                           metadata: ["provider": "\(provider)"])
        }
        let deviceKey = try PrivacyIDEADeviceKey.generate()
        let pushToken = parsed.pollOnly ? nil : device.token
        // The server keeps the token open for step 2 only `ttl` minutes: never wait longer than that.
        var http = self.http
        http.timeout = min(http.timeout, .seconds(parsed.enrollmentWindow))
        let serverKey: PrivacyIDEAServerKey
        do {
            let response = try await http.send(PrivacyIDEAEnrollment.request(uri: parsed, deviceKey: deviceKey, pushToken: pushToken))
            serverKey = try PrivacyIDEAEnrollment.serverKey(from: response.body)
        } catch {
            throw EnrollmentFailure(description: "\(descriptor.displayName) enrollment of \(parsed.serial) failed: \(error)", upstream: true)
        }
        let credentials = PrivacyIDEACredentials(uri: parsed, deviceKey: deviceKey, serverKey: serverKey, pushToken: pushToken)
        let account = Account(id: Identifier.make(prefix: "acc"), provider: provider, issuer: parsed.issuer,
                              name: name ?? parsed.label, createdAt: Date(), hasTOTP: false)
        return EnrolledAccount(account: account, lookupKey: parsed.serial,
                               credentials: try JSONEncoder().encode(credentials), totp: nil)
    }

    func answer(_ approval: StoredApproval, account: StoredAccount, decision: AnswerDecision) async throws(AnswerFailure)
        -> AnswerReply {
        let request: OutboundRequest
        do {
            let challenge = try PrivacyIDEAChallenge(answerContext: approval.answerContext)
            request = try PrivacyIDEAAnswer.request(challenge: challenge, credentials: Self.credentials(of: account),
                                                    decision: decision)
        } catch {
            throw .rejected("cannot build the \(descriptor.displayName) answer: \(error)")
        }
        let response = try await http.send(request)
        do {
            let reply = try PrivacyIDEAAnswer.reply(from: response.body)
            return AnswerReply(displayCode: reply.displayCode, displayMessage: reply.message)
        } catch {
            throw .rejected("\(error) (the challenge may have expired or been answered elsewhere)")
        }
    }

    /// The signed `new_fb_token` update; a poll-only token has no push token, so there is nothing to tell.
    func updatePushToken(of account: StoredAccount, device: DeviceIdentity, deviceName: String) async throws
        -> PushTokenUpdate {
        var credentials = try Self.credentials(of: account)
        guard !credentials.pollOnly else { return .updated(credentials: account.credentials) }
        let response = try await http.send(PrivacyIDEAPoll.tokenUpdateRequest(credentials: credentials,
                                                                             newToken: device.token, at: Date()))
        try PrivacyIDEAPoll.confirmed(response.body, what: "push token update")
        credentials.pushToken = device.token
        return .updated(credentials: try JSONEncoder().encode(credentials))
    }

    static func credentials(of account: StoredAccount) throws -> PrivacyIDEACredentials {
        try JSONDecoder().decode(PrivacyIDEACredentials.self, from: account.credentials)
    }
}
