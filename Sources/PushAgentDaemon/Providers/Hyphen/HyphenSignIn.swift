import ControlWire
import Foundation
import Logging
import PushAgentCore
import PushAgentStore

/// The source-device role: signing this machine in to a Hyphen account, as the SDKs' `authenticate` does. A key
/// Hyphen already knows signs in at once with the device-key challenge; otherwise another device of the account must
/// approve a 2FA request (shown as an outgoing request and followed until it ends); an account with no device yet
/// is signed up with this one.
struct HyphenSignIn: Sendable {
    let store: AgentStore
    let http: HyphenHTTP
    let events: EventBus
    let deviceName: String
    let logger: Logger

    /// Starts signing in with the user's credential (what Hyphen accepts for `method: firebase`). Returns the request:
    /// `completed` when no other device was needed, else `pending` while the other device decides.
    func start(account idOrPrefix: String, credential: String, peer: Peer) async throws -> TwoFactorRequest {
        let stored = try await store.account(matching: idOrPrefix)
        guard stored.account.provider == .hyphen else {
            throw ServiceError(.invalidArgument, "account \(stored.account.id) is a \(stored.account.provider.rawValue) account; `hyphen signin` signs in Hyphen accounts")
        }
        guard !credential.isEmpty else {
            throw ServiceError(.invalidArgument, "the credential is empty: give the sign-in token your Hyphen app issued (--credential TOKEN, or --credential - to read it from stdin)")
        }
        let credentials = try decode(stored)
        guard let pushToken = try await store.pushToken(for: stored.account) else {
            throw ServiceError(.unavailable, "not registered with \(stored.account.transport) yet, so Hyphen cannot be given a push token; check `pushctl status` and try again once it is connected")
        }
        try await store.audit(event: "hyphen_signin", peer: peer, subject: stored.account.id, detail: nil)
        let key = try credentials.key()
        let api = HyphenAPI(credentials)
        do throws(AnswerFailure) {
            if credentials.session != nil, let signedIn = try await challenge(stored.account, credentials, key, credential) {
                return signedIn
            }
            let own = HyphenDevice.linux(publicKey: key.publicKeyHex, pushToken: pushToken, name: deviceName,
                                         osVersion: Self.kernelRelease)
            do throws(AnswerFailure) {
                let reply = try await http.json(try HyphenHTTP.build { try api.signIn2FA(credential: credential, chain: credentials.app.chain, device: own) },
                                                step: "2FA sign-in request", as: HyphenSignIn2FA.self)
                return try await follow(reply, account: stored.account, credentials: credentials)
            } catch {
                // Hyphen's answer for an account with no device yet; the SDKs sign up then.
                guard case .rejected(let cause) = error, cause.localizedCaseInsensitiveContains("sign up") else { throw error }
                let result = try await http.json(try HyphenHTTP.build { try api.signUp(credential: credential, chain: credentials.app.chain, device: own) },
                                                 step: "sign-up", as: HyphenSignInResult.self)
                return try await signedIn(result, account: stored.account, credentials: credentials, how: "sign-up",
                                          message: "This device is the first device of a new Hyphen account")
            }
        } catch {
            throw ServiceError(.upstream, "Hyphen sign-in for \(credentials.app.email) failed: \(error)")
        }
    }

    /// The device-key challenge; nil when Hyphen refuses it (the key was removed, say), so a 2FA request is tried.
    private func challenge(_ account: Account, _ credentials: HyphenCredentials, _ key: HyphenDeviceKey,
                           _ credential: String) async throws(AnswerFailure) -> TwoFactorRequest? {
        let api = HyphenAPI(credentials)
        do throws(AnswerFailure) {
            let challenge = try await http.json(
                try HyphenHTTP.build { try api.signInChallenge(credential: credential, chain: credentials.app.chain, publicKey: key.publicKeyHex) },
                step: "device-key challenge", as: HyphenChallenge.self)
            let result = try await http.json(try HyphenHTTP.build { try api.respondToChallenge(challenge, key: key) },
                                             step: "device-key challenge response", as: HyphenSignInResult.self)
            return try await signedIn(result, account: account, credentials: credentials, how: "device-key",
                                      message: "Signed in with this device's key; no other device was needed")
        } catch {
            guard case .rejected(let cause) = error else { throw error }
            logger.notice("Hyphen refused the device-key sign-in (\(cause)); asking another device instead",
                          metadata: ["account_id": "\(account.id)"])
            return nil
        }
    }

    /// Stores the session and records the sign-in as a request that needed nobody else.
    private func signedIn(_ result: HyphenSignInResult, account: Account, credentials: HyphenCredentials, how: String,
                          message: String) async throws(AnswerFailure) -> TwoFactorRequest {
        var credentials = credentials
        credentials.session = try await http.session(from: result, credentials: credentials)
        let now = Date()
        let request = TwoFactorRequest(
            id: Identifier.make(prefix: "req"), provider: .hyphen, accountId: account.id,
            remoteId: "\(how):\(UUID().uuidString.lowercased())", title: Self.title(credentials), message: message,
            state: .completed, createdAt: now, expiresAt: now)
        do {
            try await store.updateCredentials(accountId: account.id, try JSONEncoder().encode(credentials))
            try await store.insertRequest(request, context: Data("{}".utf8))
        } catch {
            throw .rejected("signed in, but the session cannot be stored: \(error)")
        }
        logger.notice("account \(account.id) signed in to Hyphen (\(how))", metadata: ["account_id": "\(account.id)", "request_id": "\(request.id)"])
        await events.publish(.requestUpdated(request))
        return request
    }

    /// Records the pending 2FA request and follows it in the background until it ends.
    private func follow(_ reply: HyphenSignIn2FA, account: Account, credentials: HyphenCredentials)
        async throws(AnswerFailure) -> TwoFactorRequest {
        let status = reply.twoFactorAuth
        guard let token = reply.ephemeralAccessToken, !token.isEmpty else {
            throw .rejected("Hyphen's reply has no ephemeralAccessToken to finish the sign-in with")
        }
        let now = Date()
        let request = TwoFactorRequest(
            id: Identifier.make(prefix: "req"), provider: .hyphen, accountId: account.id, remoteId: status.id,
            title: Self.title(credentials),
            message: "Approve this sign-in on your other device (\(status.request.destDevice.summary))",
            state: .pending, createdAt: now,
            expiresAt: min(HyphenTimestamp.parse(status.expiresAt) ?? now.addingTimeInterval(180),
                           now.addingTimeInterval(ApprovalDraft.maximumLifetime)))
        do {
            let context = HyphenSignInContext(requestId: status.request.id, ephemeralToken: token)
            try await store.insertRequest(request, context: try JSONEncoder().encode(context))
        } catch {
            throw .rejected("the 2FA request \(status.id) cannot be stored: \(error)")
        }
        logger.notice("Hyphen sign-in for account \(account.id) waits for another device (request \(request.id))",
                      metadata: ["account_id": "\(account.id)", "request_id": "\(request.id)"])
        await events.publish(.requestUpdated(request))
        follower.start(request.id)
        return request
    }

    var follower: HyphenSignInFollower {
        HyphenSignInFollower(store: store, http: http, events: events, logger: logger)
    }

    /// Follows the requests a previous run left waiting.
    func resumeUnfinished() async throws {
        for stored in try await store.unfinishedRequests() where stored.request.provider == .hyphen {
            logger.notice("resuming Hyphen sign-in request \(stored.request.id)", metadata: ["request_id": "\(stored.request.id)"])
            follower.start(stored.request.id)
        }
    }

    private func decode(_ stored: StoredAccount) throws -> HyphenCredentials {
        do { return try JSONDecoder().decode(HyphenCredentials.self, from: stored.credentials) }
        catch { throw ServiceError(.unavailable, "the stored credentials of \(stored.account.id) are unreadable") }
    }


    private static func title(_ credentials: HyphenCredentials) -> String {
        "Sign-in of this device to \(credentials.app.appName) as \(credentials.app.email)"
    }

    /// `uname -r`, the closest thing to an OS version a Linux machine has.
    static var kernelRelease: String {
        var name = utsname()
        guard uname(&name) == 0 else { return "Linux" }
        return withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
