import ControlWire
import Foundation
import Logging
import PushAgentCore
import PushAgentStore

/// Follows one pending Hyphen sign-in until it ends: the other device's answer normally arrives as a
/// `2fa-status-change` push (the ingest moves the request); when none arrives within `pushGrace`, the request's
/// status is polled. Once approved, the sign-in is finished and the session stored; past its expiry it expires.
struct HyphenSignInFollower: Sendable {
    static let pushGrace: Duration = .seconds(5)
    static let pollInterval: Duration = .seconds(3)
    static let finishRetry: Duration = .seconds(2)

    let store: AgentStore
    let http: HyphenHTTP
    let events: EventBus
    let logger: Logger

    func start(_ id: String) {
        Task { await follow(id) }
    }

    private func follow(_ id: String) async {
        var grace = Self.pushGrace
        do {
            while true {
                let stored = try await store.request(matching: id)
                let request = stored.request
                switch request.state {
                case .approved:
                    return await finish(stored)
                case .completed, .denied, .expired, .failed:
                    return
                case .pending:
                    let left = request.expiresAt.timeIntervalSinceNow
                    guard left > 0 else {
                        return await end(request, .expired, error: "the other device did not answer before \(request.expiresAt.formatted(.iso8601))")
                    }
                    let wait = min(grace, .milliseconds(Int(left * 1000)))
                    let seen = try await RequestWatch(store: store, events: events).wait(for: id, timeout: wait) { $0.state != .pending }
                    if seen.state == .pending, seen.expiresAt > Date() { await poll(stored) }
                    grace = Self.pollInterval
                }
            }
        } catch {
            logger.error("following Hyphen request \(id) failed: \(error)", metadata: ["request_id": "\(id)"])
        }
    }

    /// Asks Hyphen for the request's status; a failure is logged and the next round tries again.
    private func poll(_ stored: StoredTwoFactorRequest) async {
        let request = stored.request
        do {
            let (credentials, context) = try await load(stored)
            let call = try HyphenAPI(credentials).twoFactorStatus(twoFactorAuthId: request.remoteId, ephemeralToken: context.ephemeralToken)
            let status = try await http.json(call, step: "2FA status", as: HyphenSignIn2FA.self).twoFactorAuth
            switch status.status {
            case .pending: return
            case .approved: await move(request, to: .approved, txId: status.result?.txId)
            case .denied: await move(request, to: .denied, txId: nil)
            }
            logger.notice("no status push for Hyphen request \(request.id); polling found it \(status.status.rawValue)",
                          metadata: ["request_id": "\(request.id)"])
        } catch {
            logger.warning("polling Hyphen request \(request.id) failed: \(error); trying again", metadata: ["request_id": "\(request.id)"])
        }
    }

    /// Collects the session the approval granted, retrying network failures until the request expires.
    private func finish(_ stored: StoredTwoFactorRequest) async {
        let request = stored.request
        while true {
            do throws(AnswerFailure) {
                let (credentials, context): (HyphenCredentials, HyphenSignInContext)
                do { (credentials, context) = try await load(stored) } catch { throw .rejected("\(error)") }
                let call = try HyphenHTTP.build {
                    try HyphenAPI(credentials).finish2FA(requestId: context.requestId, ephemeralToken: context.ephemeralToken)
                }
                let result = try await http.json(call, step: "finish sign-in", as: HyphenSignInResult.self)
                var signedIn = credentials
                signedIn.session = try await http.session(from: result, credentials: credentials)
                do { try await store.updateCredentials(accountId: request.accountId, try JSONEncoder().encode(signedIn)) }
                catch { throw .rejected("the session cannot be stored: \(error)") }
                logger.notice("account \(request.accountId) signed in to Hyphen (approved by another device)",
                              metadata: ["account_id": "\(request.accountId)", "request_id": "\(request.id)"])
                return await end(request, .completed, error: nil)
            } catch {
                if case .retryable(let cause) = error, request.expiresAt.timeIntervalSinceNow > 0, !Task.isCancelled {
                    logger.warning("finishing Hyphen sign-in \(request.id): \(cause); retrying", metadata: ["request_id": "\(request.id)"])
                    try? await Task.sleep(for: Self.finishRetry)
                    continue
                }
                return await end(request, .failed, error: "the other device approved, but finishing failed: \(error)")
            }
        }
    }

    private func move(_ request: TwoFactorRequest, to state: TwoFactorRequestState, txId: String?) async {
        do {
            let moved = try await store.transitionRequest(request.id, to: state, txId: txId)
            await events.publish(.requestUpdated(moved))
        } catch {
            // A push moved it in the meantime: nothing to do.
            logger.info("request \(request.id) was already moved: \(error)", metadata: ["request_id": "\(request.id)"])
        }
    }

    private func end(_ request: TwoFactorRequest, _ state: TwoFactorRequestState, error: String?) async {
        do {
            let ended = try await store.transitionRequest(request.id, to: state, error: error)
            if let error {
                logger.error("Hyphen sign-in request \(request.id) \(state.rawValue): \(error)", metadata: ["request_id": "\(request.id)"])
            }
            await events.publish(.requestUpdated(ended))
        } catch {
            logger.info("request \(request.id) was already moved: \(error)", metadata: ["request_id": "\(request.id)"])
        }
    }

    /// The account's credentials (it may have been removed meanwhile) and what the sign-in kept.
    private func load(_ stored: StoredTwoFactorRequest) async throws -> (HyphenCredentials, HyphenSignInContext) {
        let account = try await store.account(matching: stored.request.accountId)
        return (try JSONDecoder().decode(HyphenCredentials.self, from: account.credentials),
                try JSONDecoder().decode(HyphenSignInContext.self, from: stored.context))
    }
}
