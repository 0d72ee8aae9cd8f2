import Foundation
import Logging
import PushAgentCore
import PushAgentStore

/// Auth0 Guardian (protocols.md §10): accounts are found by enrollment id; pushes carry no signature, so a push is
/// shown only for an enrolled device and only once per transaction (the store's dedupe key), and its approval says
/// that its context is as the push claims. Answers are RS256 JWTs under the device key, sent to the account's own
/// API, never to an address the push names.
struct GuardianModule: ProviderModule {
    let context: ProviderContext

    var descriptor: ProviderDescription { GuardianProvider.description }
    var credentialsType: any Decodable.Type { GuardianCredentials.self }

    func effect(for data: [String: String], receivedAt: Date) async throws(PushRejection) -> PushEffect {
        let enrollmentId = try GuardianPush.enrollmentId(data)
        let stored = try await store.account(
            of: provider, namedByPush: enrollmentId,
            unknown: "no Auth0 Guardian account here is the enrollment \(enrollmentId) the push names")
        let notification = try GuardianPush.decode(data, receivedAt: receivedAt)
        return try .approval {
            try notification.approvalDraft(accountId: stored.account.id, issuer: stored.account.issuer,
                                           accountName: stored.account.name)
        }
    }

    /// A new RSA device key, registered with the QR code's one-time ticket; the push token is the relay's or the
    /// FCM app's, as for every provider.
    func enroll(_ parsed: GuardianEnrollmentURI, name: String?, device: DeviceIdentity, deviceName: String) async throws
        -> EnrolledAccount {
        let key: GuardianDeviceKey
        do { key = try GuardianDeviceKey.generate() }
        catch { throw EnrollmentFailure(description: "cannot make a device key: \(error)", upstream: false) }
        let identifier = Identifier.make(prefix: "pushagent")
        let credentials: GuardianCredentials
        do {
            let response = try await http.send(GuardianEnrollment.request(
                uri: parsed, key: key, deviceIdentifier: identifier, deviceName: deviceName, pushToken: device.token))
            credentials = try GuardianEnrollment.credentials(reply: response.body, uri: parsed, key: key,
                                                              deviceIdentifier: identifier)
        } catch {
            throw EnrollmentFailure(description: "Auth0 Guardian enrollment at \(ProviderHTTP.host(parsed.apiBaseURL)) failed: \(error)",
                                    upstream: true)
        }
        let account = Account(id: Identifier.make(prefix: "acc"), provider: provider, issuer: parsed.issuer,
                              name: name ?? parsed.accountName, createdAt: Date(), hasTOTP: credentials.totp != nil)
        return EnrolledAccount(account: account, lookupKey: credentials.enrollmentId,
                               credentials: try JSONEncoder().encode(credentials), totp: credentials.totp)
    }

    func answer(_ approval: StoredApproval, account: StoredAccount, decision: AnswerDecision) async throws(AnswerFailure)
        -> AnswerReply {
        let request: OutboundRequest
        do {
            let notification = try GuardianNotification(answerContext: approval.answerContext)
            request = try await GuardianAnswer.request(notification: notification, credentials: Self.credentials(of: account),
                                                       decision: decision, at: Date())
        } catch {
            throw .rejected("cannot build the Auth0 Guardian answer: \(error)")
        }
        _ = try await http.send(request)
        return .nothing
    }

    func updatePushToken(of account: StoredAccount, device: DeviceIdentity, deviceName: String) async throws
        -> PushTokenUpdate {
        let credentials = try Self.credentials(of: account)
        _ = try await http.send(GuardianDeviceAccount.updatePushToken(credentials: credentials, newToken: device.token,
                                                                      at: Date()))
        return .updated(credentials: account.credentials)
    }

    /// Guardian lists the device among the user's factors until it is deleted there; 404 means it already is.
    func unenroll(_ account: StoredAccount) async throws {
        let request = try await GuardianDeviceAccount.delete(credentials: Self.credentials(of: account), at: Date())
        _ = try await http.send(request, passing: [404])
    }

    static func credentials(of account: StoredAccount) throws -> GuardianCredentials {
        try JSONDecoder().decode(GuardianCredentials.self, from: account.credentials)
    }
}
