import Crypto
import Foundation
import PushAgentCore

/// The agent as the destination device: the sim plays a new device asking to sign in, and checks the agent's
/// answer the way Hyphen would: a sealed transaction, signed by the agent's device key, Hyphen's server key and the
/// paymaster, running the request's script.
extension HyphenSim {
    /// Sends a `2fa-request` push to the agent's device (admin API).
    /// Untyped `throws` (it throws `AdminFailure`): typed throws on this async function crashes swift-frontend 6.3.1
    /// at -O ("While splitting coroutine"), which broke `make bench`'s release build.
    func requestApproval(_ request: SimAdminAPI.HyphenPushRequest, now: Date) async throws
        -> SimAdminAPI.HyphenPushResponse {
        let (status, email, newKey, lifetime) = try newApprovalRequest(request, now: now)
        let agent = status.request.destDevice
        twoFactors[status.id] = TwoFactor(status: status, email: email, direction: .toAgent, newKey: newKey)
        do throws(HyphenFailure) { try await push("2fa-request", status, to: agent.pushToken, ttl: Int(lifetime)) }
        catch { throw AdminFailure(status: 502, code: "upstream", message: error.message) }
        events.emit("hyphen: sent 2fa-request \(status.id) to \(email)'s device \(agent.name)")
        return .init(id: status.id, email: email)
    }

    /// A `2fa-request` from a new device of the user (default: the one whose device registered last) to the agent.
    func newApprovalRequest(_ request: SimAdminAPI.HyphenPushRequest, now: Date) throws(AdminFailure)
        -> (status: Hyphen2FAStatus, email: String, newKey: P256.Signing.PublicKey, lifetime: TimeInterval) {
        guard let user = request.email.flatMap({ users[$0] }) ?? users.values.max(by: { $0.lastRegistration < $1.lastRegistration }),
              let agent = user.devices.values.first(where: { $0.pushToken != "pushsim-phone" }), user.address != nil
        else {
            throw AdminFailure(status: 409, code: "conflict", message: "no user has a signed-in agent device yet; sign one in first")
        }
        let requester = HyphenDeviceKey()
        let src = HyphenDevice(id: UUID().uuidString.lowercased(), publicKey: requester.publicKeyHex, pushToken: "pushsim-new-device",
                               name: "iPhone 15 Pro", osName: "iOS", osVersion: "17.1", deviceManufacturer: "Apple",
                               deviceModel: "iPhone16,1", lang: "en", type: "mobile")
        let lifetime = TimeInterval(request.expiresIn ?? Int(Self.twoFactorLifetime))
        let status = twoFactor(email: user.email, accountId: user.accountId, src: src, dest: agent,
                               message: request.message ?? Self.cadenceMessage(requester.privateKey.publicKey),
                               expiresAt: now.addingTimeInterval(lifetime), now: now)
        return (status, user.email, requester.privateKey.publicKey, lifetime)
    }

    /// `POST /sign/v1/cadence/transaction`: Hyphen's server key co-signs for the signed-in user's account.
    func serverSignature(_ body: HyphenSignBody, token: String?) throws(HyphenFailure) -> HyphenSignResult {
        let (user, _) = try user(signedInWith: token)
        guard let address = user.address else { throw .badRequest("\(user.email) has no account") }
        return HyphenSignResult(signature: .init(addr: address.description, keyId: 0,
                                                 signature: try sign(body, with: serverKey, what: "transaction")))
    }

    /// `POST /sign/v1/cadence/paymaster`: the paymaster signs the envelope.
    func paymasterSignature(_ body: HyphenSignBody, token: String?) throws(HyphenFailure) -> HyphenSignResult {
        _ = try user(signedInWith: token)
        return HyphenSignResult(signature: .init(addr: chain.paymaster.description, keyId: 0,
                                                 signature: try sign(body, with: paymasterKey, what: "envelope")))
    }

    /// `POST /device/v1/2fa/{id}/approve {txId}` from the agent.
    func approve(_ id: String, _ body: HyphenApproveBody, token: String?, now: Date) async throws(HyphenFailure) {
        let request = try answerable(id, token: token, now: now)
        let problem = check(body.txId, approves: request, now: now)
        if let problem {
            await record(id, request.email, .rejected, txId: body.txId, verified: false, error: problem)
            throw .badRequest(problem)
        }
        let address = users[request.email]!.address!
        ledger.addKey(.init(publicKey: request.newKey, hashing: "SHA2_256", weight: FlowLedger.fullWeight / 2), to: address)
        twoFactors[id]?.status.status = .approved
        twoFactors[id]?.status.result = .init(txId: body.txId)
        await record(id, request.email, .approved, txId: body.txId, verified: true, error: nil)
    }

    /// `DELETE /device/v1/2fa/{id}` from the agent.
    func deny(_ id: String, token: String?, now: Date) async throws(HyphenFailure) {
        let request = try answerable(id, token: token, now: now)
        twoFactors[id]?.status.status = .denied
        await record(id, request.email, .denied, txId: nil, verified: true, error: nil)
    }

    /// A request the calling device may answer: its destination, still pending, not expired.
    private func answerable(_ id: String, token: String?, now: Date) throws(HyphenFailure) -> TwoFactor {
        let (_, publicKey) = try user(signedInWith: token)
        guard let request = twoFactors[id], request.direction == .toAgent else { throw .notFound("no 2FA request \(id)") }
        guard request.status.request.destDevice.publicKey.lowercased() == publicKey else {
            throw .forbidden("2FA request \(id) is for another device")
        }
        guard request.status.status == .pending else { throw .badRequest("2FA request \(id) is already \(request.status.status.rawValue)") }
        guard let expiresAt = HyphenTimestamp.parse(request.status.expiresAt), expiresAt > now else {
            throw .badRequest("2FA request \(id) has expired")
        }
        return request
    }

    /// Why `txId` does not approve `request`, or nil when it does.
    private func check(_ txId: String, approves request: TwoFactor, now: Date) -> String? {
        guard let submitted = ledger.transactions[txId.lowercased()] else { return "transaction \(txId) was never submitted" }
        guard ledger.isSealed(txId.lowercased(), now: now) else { return "transaction \(txId) is not sealed yet" }
        let transaction = submitted.transaction
        let user = users[request.email]!
        let agentKey = request.status.request.destDevice.publicKey
        guard transaction.proposalKey.address == user.address,
              transaction.proposalKey.keyIndex == ledger.keyIndex(of: agentKey, on: user.address!)
        else { return "transaction \(txId) is not proposed by the approving device's key" }
        struct Message: Decodable { var cadence: String }
        guard let expected = try? JSONDecoder().decode(Message.self, from: Data(request.status.request.message.utf8)),
              transaction.script == expected.cadence
        else { return "transaction \(txId) does not run the request's script" }
        return nil
    }

    private func sign(_ body: HyphenSignBody, with key: P256.Signing.PrivateKey, what: String) throws(HyphenFailure) -> String {
        guard let message = Hex.decode(body.message), message.starts(with: FlowSigning.transactionDomainTag) else {
            throw .badRequest("message must be the hex of a Flow transaction \(what) signing message (domain tag first)")
        }
        guard let signature = try? FlowSigning.sign(message, with: key) else { throw HyphenFailure(status: 500, message: "signing failed") }
        return signature.hex
    }

    private func record(_ id: String, _ email: String, _ outcome: SimAdminAPI.Outcome, txId: String?, verified: Bool,
                        error: String?) async {
        let verdict = error.map { " — refused: \($0)" } ?? (txId.map { " — transaction \($0) sealed and verified" } ?? "")
        events.emit("hyphen: received \(outcome == .denied ? "DENY" : "APPROVE") for \(id)\(verdict)")
        await answers.append { .init(seq: $0, id: id, email: email, outcome: outcome, txId: txId, verified: verified, error: error) }
    }

    // MARK: Flow access node

    func latestBlocks() -> [FlowREST.Block] { [ledger.latestBlock] }

    func flowAccount(_ text: String) throws(HyphenFailure) -> FlowREST.Account {
        guard let address = FlowAddress(hex: text), let account = ledger.account(address) else {
            throw .notFound("account \(text) does not exist")
        }
        return account
    }

    func submit(_ body: FlowREST.Transaction, now: Date) throws(HyphenFailure) -> FlowREST.SubmittedTransaction {
        let transaction: FlowTransaction
        do { transaction = try body.transaction() } catch { throw .badRequest(error.description) }
        switch ledger.submit(transaction, now: now) {
        case .success(let id):
            ledger.advance()
            events.emit("flow: accepted transaction \(id) from \(transaction.proposalKey.address) #\(transaction.proposalKey.keyIndex)")
            return .init(id: id)
        case .failure(let refusal):
            events.emit("flow: refused a transaction: \(refusal)")
            throw .badRequest(refusal.description)
        }
    }

    func transactionResult(_ id: String, now: Date) throws(HyphenFailure) -> FlowREST.TransactionResult {
        guard let result = ledger.result(of: id.lowercased(), now: now) else { throw .notFound("transaction \(id) is unknown") }
        return result
    }
}
