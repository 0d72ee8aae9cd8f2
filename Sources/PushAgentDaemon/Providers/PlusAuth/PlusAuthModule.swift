import Foundation
import Logging
import PushAgentCore
import PushAgentStore

/// PlusAuth push authenticator: a push belongs to the account whose key verifies its context; accounts may be bound
/// to this machine's identity (`bind_sim`).
struct PlusAuthModule: ProviderModule {
    let context: ProviderContext
    let machineIdentity: MachineIdentity

    init(context: ProviderContext) {
        self.context = context
        machineIdentity = MachineIdentity(logger: context.logger)
    }

    var descriptor: ProviderDescription { PlusAuthProvider.description }
    static var settingsSection: (any ConfigSection.Type)? { PlusAuthSettings.self }
    var credentialsType: any Decodable.Type { PlusAuthCredentials.self }

    private var settings: PlusAuthSettings { config.current.providers.plusAuth }

    func effect(for data: [String: String], receivedAt: Date) async throws(PushRejection) -> PushEffect {
        let accounts: [(stored: StoredAccount, credentials: PlusAuthCredentials)]
        do {
            accounts = try await store.accounts(provider: .plusauth).compactMap { stored in
                guard let credentials = try? JSONDecoder().decode(PlusAuthCredentials.self, from: stored.credentials) else {
                    logger.error("stored credentials of \(stored.account.id) are unreadable; its pushes cannot be verified",
                                 metadata: ["account_id": "\(stored.account.id)"])
                    return nil
                }
                return (stored, credentials)
            }
        } catch {
            throw PushRejection(.malformed, "account lookup failed: \(error)")
        }
        let (accountId, challenge) = try await PlusAuthPush.verify(
            data, candidates: accounts.map { $0.credentials.candidate(accountId: $0.stored.account.id) },
            receivedAt: receivedAt)
        guard let (stored, credentials) = accounts.first(where: { $0.stored.account.id == accountId }) else {
            throw PushRejection(.unknownAccount, "account \(accountId) vanished")
        }
        if let refusal = await admit(.push(bindingRequested: challenge.bindingRequested), stored, credentials) {
            throw PushRejection(.bindingChanged, refusal)
        }
        return try .approval {
            try challenge.approvalDraft(accountId: accountId, issuer: stored.account.issuer, accountName: stored.account.name)
        }
    }

    func enroll(_ parsed: PlusAuthEnrollmentURI, name: String?, device: DeviceIdentity, deviceName: String) async throws
        -> EnrolledAccount {
        let key: PlusAuthJWK
        let settings = settings
        do { key = try PlusAuthKeys.generate(settings.keyAlgorithm) }
        catch { throw EnrollmentFailure(description: "\(error)", upstream: false) }
        // Per account rather than per install, so two tenants cannot link their accounts by it.
        let deviceIdentifier = UUID().uuidString.lowercased()
        let request = try PlusAuthEnrollment.request(uri: parsed, privateKey: key, deviceIdentifier: deviceIdentifier,
                                                     deviceToken: device.token)
        do {
            _ = try await http.send(request)
        } catch {
            throw EnrollmentFailure(description: "PlusAuth enrollment failed: \(error)", upstream: true)
        }
        let machineIdentity = machineIdentity.fingerprint(settings)
        if machineIdentity == nil {
            logger.warning("enrolled without a machine identity: pushes of this account that ask for binding (bind_sim) will be refused")
        }
        let credentials = PlusAuthCredentials(
            algorithm: settings.keyAlgorithm, privateKey: key, deviceIdentifier: deviceIdentifier,
            enrollmentURL: parsed.enrollmentURL, binding: PlusAuthBinding(enrolledIdentity: machineIdentity))
        let account = Account(id: Identifier.make(prefix: "acc"), provider: .plusauth, issuer: parsed.issuer,
                              name: name ?? parsed.accountName, createdAt: Date(), hasTOTP: true)
        return EnrolledAccount(account: account, lookupKey: key.kid ?? deviceIdentifier,
                               credentials: try JSONEncoder().encode(credentials), totp: parsed.totp)
    }

    func answer(_ approval: StoredApproval, account: StoredAccount, decision: AnswerDecision) async throws(AnswerFailure)
        -> AnswerReply {
        let requests: [OutboundRequest]
        do {
            let challenge = try PlusAuthChallenge(answerContext: approval.answerContext)
            let credentials = try JSONDecoder().decode(PlusAuthCredentials.self, from: account.credentials)
            // The daemon may have restarted on a changed machine since the push arrived.
            if let refusal = await admit(.push(bindingRequested: challenge.bindingRequested), account, credentials) {
                throw AnswerFailure.rejected(refusal)
            }
            requests = try await PlusAuthAnswer.requests(challenge: challenge, credentials: credentials, decision: decision,
                                                         fallbackPath: settings.fallbackPath, at: Date())
        } catch let failure as AnswerFailure {
            throw failure
        } catch {
            throw .rejected("cannot build the PlusAuth answer: \(error)")
        }
        for (index, request) in requests.enumerated() {
            let isLast = index == requests.count - 1
            let response = try await http.send(request, passing: isLast ? [] : PlusAuthAnswer.fallbackStatuses)
            if (200..<300).contains(response.status) { return .nothing }
            logger.notice("the resolve URL answered HTTP \(response.status); trying \(URL(string: requests[index + 1].url)?.path ?? "the fallback")",
                          metadata: ["approval_id": "\(approval.approval.id)", "provider": "plusauth"])
        }
        return .nothing
    }

    func codeRefusal(for account: StoredAccount) async throws -> String? {
        let credentials = try JSONDecoder().decode(PlusAuthCredentials.self, from: account.credentials)
        return await admit(.code, account, credentials)
    }

    /// Checks the account's binding for `use`, keeps what it learned (binding asked for, change noticed) and
    /// returns the refusal, with what to do about it.
    private func admit(_ use: PlusAuthBinding.Use, _ stored: StoredAccount, _ credentials: PlusAuthCredentials) async -> String? {
        let id = stored.account.id
        let admission = credentials.binding.admit(use, currentIdentity: machineIdentity.fingerprint(settings), at: Date())
        if admission.binding != credentials.binding {
            var updated = credentials
            updated.binding = admission.binding
            do {
                try await store.updateCredentials(accountId: id, JSONEncoder().encode(updated))
            } catch {
                logger.error("account \(id): cannot record its binding state: \(error)", metadata: ["account_id": "\(id)"])
            }
        }
        return admission.refusal.map {
            "account \(id): \($0); its pushes and codes are refused until it is enrolled again: remove it "
                + "(pushctl remove \(id)) and enroll it from a new QR code"
        }
    }
}
