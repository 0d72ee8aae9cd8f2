import Foundation
import PushAgentCore
import PushAgentStore

/// ForgeRock / PingAM push: accounts are found by mechanism uid, pushes verified with the account's HS256 secret.
struct ForgeRockModule: ProviderModule {
    let context: ProviderContext

    var descriptor: ProviderDescription { ForgeRockProvider.description }
    var credentialsType: any Decodable.Type { ForgeRockCredentials.self }

    func effect(for data: [String: String], receivedAt: Date) async throws(PushRejection) -> PushEffect {
        let (_, mechanismUid) = try ForgeRockPush.peek(data)
        let stored = try await store.account(of: .forgerock, namedByPush: mechanismUid,
                                             unknown: "no ForgeRock account with mechanism uid \(mechanismUid)")
        let credentials: ForgeRockCredentials
        do { credentials = try JSONDecoder().decode(ForgeRockCredentials.self, from: stored.credentials) }
        catch { throw PushRejection(.malformed, "stored credentials of \(stored.account.id) are unreadable") }
        let notification = try await ForgeRockPush.verify(data, secret: credentials.sharedSecret, receivedAt: receivedAt)
        return try .approval {
            try notification.approvalDraft(accountId: stored.account.id, issuer: stored.account.issuer,
                                           accountName: stored.account.name)
        }
    }

    func enroll(_ parsed: ForgeRockEnrollmentURI, name: String?, device: DeviceIdentity, deviceName: String) async throws
        -> EnrolledAccount {
        let mechanismUid = UUID().uuidString.lowercased()
        let request = try await ForgeRockRegistration.request(uri: parsed, mechanismUid: mechanismUid,
                                                               deviceToken: device.token, deviceName: deviceName)
        do {
            _ = try await http.send(request)
        } catch {
            throw EnrollmentFailure(description: "ForgeRock registration failed: \(error)", upstream: true)
        }
        let credentials = ForgeRockCredentials(uri: parsed, mechanismUid: mechanismUid)
        let account = Account(id: Identifier.make(prefix: "acc"), provider: .forgerock, issuer: parsed.issuer,
                              name: name ?? parsed.accountName, createdAt: Date(), hasTOTP: parsed.totp != nil)
        return EnrolledAccount(account: account, lookupKey: mechanismUid,
                               credentials: try JSONEncoder().encode(credentials), totp: parsed.totp)
    }

    /// AM's `_action=refresh`; the credentials do not change (AM keeps the token, the agent reads it from the relay).
    func updatePushToken(of account: StoredAccount, device: DeviceIdentity, deviceName: String) async throws
        -> PushTokenUpdate {
        let credentials = try JSONDecoder().decode(ForgeRockCredentials.self, from: account.credentials)
        _ = try await http.send(try await ForgeRockTokenUpdate.request(credentials: credentials, newToken: device.token,
                                                                      deviceName: deviceName))
        return .updated(credentials: account.credentials)
    }

    func answer(_ approval: StoredApproval, account: StoredAccount, decision: AnswerDecision) async throws(AnswerFailure)
        -> AnswerReply {
        let request: OutboundRequest
        do {
            let notification = try JSONDecoder().decode(ForgeRockNotification.self, from: approval.answerContext)
            let credentials = try JSONDecoder().decode(ForgeRockCredentials.self, from: account.credentials)
            request = try await ForgeRockAnswer.request(notification: notification, credentials: credentials, decision: decision)
        } catch {
            throw .rejected("cannot build the ForgeRock answer: \(error)")
        }
        _ = try await http.send(request)
        return .nothing
    }
}
