import Foundation
import Hummingbird
import Logging
import PushAgentCore
import PushAgentStore

/// Hyphen: accounts are found by this device's public key (the request's destination device for `2fa-request`, its
/// source device for `2fa-status-change`); approving runs a Flow transaction, denying is a DELETE.
struct HyphenModule: ProviderModule {
    let context: ProviderContext
    /// Provider HTTP with Hyphen's headers and errors.
    let hyphenHTTP: HyphenHTTP
    /// The source-device role: this machine signing in, with another device's approval.
    let signIn: HyphenSignIn

    var descriptor: ProviderDescription { HyphenProvider.description }
    var credentialsType: any Decodable.Type { HyphenCredentials.self }

    init(context: ProviderContext) {
        self.context = context
        hyphenHTTP = HyphenHTTP(http: context.http)
        signIn = HyphenSignIn(store: context.store, http: hyphenHTTP, events: context.events,
                              deviceName: context.config.current.deviceName, logger: context.logger)
    }

    func addRoutes(to v1: RouterGroup<PeerContext>, writers: Writers) {
        HyphenSignInRoutes(signIn: signIn, writers: writers).addRoutes(to: v1)
    }

    func resumeUnfinished() async throws { try await signIn.resumeUnfinished() }

    func effect(for data: [String: String], receivedAt: Date) async throws(PushRejection) -> PushEffect {
        let (handler, payload) = try HyphenPush.decode(data)
        let publicKey = handler.ownDevice(in: payload.twoFactorAuth).publicKey.lowercased()
        let stored = try await store.account(
            of: .hyphen, namedByPush: publicKey,
            unknown: "no Hyphen account here has the device key \(publicKey.prefix(16))… named by \(type(of: handler).type) \(payload.twoFactorAuth.id)")
        return try handler.effect(of: payload, account: stored.account, receivedAt: receivedAt)
    }

    /// Makes this device's key; Hyphen learns of it at sign-in (`pushctl hyphen signin`), which needs the user's
    /// credential and, for an existing account, another device's approval.
    func enroll(_ parsed: HyphenEnrollmentURI, name: String?, device: DeviceIdentity, deviceName: String) async throws
        -> EnrolledAccount {
        let key = HyphenDeviceKey()
        let account = Account(id: Identifier.make(prefix: "acc"), provider: .hyphen, issuer: parsed.appName,
                              name: name ?? parsed.email, createdAt: Date(), hasTOTP: false)
        return EnrolledAccount(account: account, lookupKey: key.publicKeyHex,
                               credentials: try JSONEncoder().encode(HyphenCredentials(uri: parsed, deviceKey: key)))
    }

    func answer(_ approval: StoredApproval, account: StoredAccount, decision: AnswerDecision) async throws(AnswerFailure)
        -> AnswerReply {
        let credentials: HyphenCredentials
        let context: HyphenApprovalContext
        do {
            credentials = try JSONDecoder().decode(HyphenCredentials.self, from: account.credentials)
            context = try JSONDecoder().decode(HyphenApprovalContext.self, from: approval.answerContext)
        } catch {
            throw .rejected("the stored Hyphen account or request is unreadable: \(error)")
        }
        guard let session = credentials.session else {
            throw .rejected("this device is not signed in to Hyphen as \(credentials.app.email): run `pushctl hyphen signin --account \(account.account.id)`")
        }
        let api = HyphenAPI(credentials)
        switch decision {
        case .deny:
            let request = try HyphenHTTP.build { try api.deny(twoFactorAuthId: context.twoFactorAuthId, token: session.accessToken) }
            _ = try await hyphenHTTP.send(request, step: "deny")
        case .approve:
            try await HyphenApprover(store: store, http: hyphenHTTP, logger: logger)
                .approve(approval.approval, credentials: credentials, session: session)
        }
        return .nothing
    }
}
