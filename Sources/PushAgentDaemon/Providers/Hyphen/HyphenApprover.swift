import Foundation
import Logging
import PushAgentCore
import PushAgentStore

/// Approving a Hyphen 2FA request as the SDKs do (protocols.md §3.3): build the Flow transaction the request carries,
/// sign its payload with the device key, get Hyphen's server co-signature and the paymaster's envelope signature,
/// submit it to the access node, wait (bounded) for the seal, then tell Hyphen the transaction id. The id is recorded
/// once submitted, so a retry or a restart waits for that transaction instead of sending a second one.
struct HyphenApprover: Sendable {
    static let sealTimeout: Duration = .seconds(60)
    static let sealPollInterval: Duration = .milliseconds(500)

    let store: AgentStore
    let http: HyphenHTTP
    let logger: Logger

    func approve(_ approval: Approval, credentials: HyphenCredentials, session: HyphenCredentials.Session)
        async throws(AnswerFailure) {
        let api = HyphenAPI(credentials)
        let node = FlowAccessAPI(baseURL: credentials.app.accessNodeURL)
        // Read again: an earlier attempt may have submitted the transaction since the approval was loaded.
        var context = try await currentContext(of: approval.id)
        let transactionId: String
        if let submitted = context.submittedTransactionId {
            transactionId = submitted
            logger.notice("approval \(approval.id): waiting again for transaction \(submitted)", metadata: ["approval_id": "\(approval.id)"])
        } else {
            transactionId = try await submit(context, credentials: credentials, session: session, api: api, node: node)
            context.submittedTransactionId = transactionId
            do { try await store.updateAnswerContext(approvalId: approval.id, try JSONEncoder().encode(context)) }
            catch { throw .rejected("transaction \(transactionId) was submitted but cannot be recorded: \(error)") }
            logger.notice("approval \(approval.id): transaction \(transactionId) submitted; waiting for its seal",
                          metadata: ["approval_id": "\(approval.id)"])
        }
        try await waitForSeal(transactionId, node: node)
        let request = try HyphenHTTP.build {
            try api.approve(twoFactorAuthId: context.twoFactorAuthId, transactionId: transactionId, token: session.accessToken)
        }
        _ = try await http.send(request, step: "approve with transaction \(transactionId)")
    }

    private func currentContext(of approvalId: String) async throws(AnswerFailure) -> HyphenApprovalContext {
        do {
            let stored = try await store.approval(matching: approvalId)
            return try JSONDecoder().decode(HyphenApprovalContext.self, from: stored.answerContext)
        } catch {
            throw .rejected("the stored Hyphen request is unreadable: \(error)")
        }
    }

    /// Builds, signs and submits the transaction; returns its id.
    private func submit(_ context: HyphenApprovalContext, credentials: HyphenCredentials,
                        session: HyphenCredentials.Session, api: HyphenAPI, node: FlowAccessAPI)
        async throws(AnswerFailure) -> String {
        let cadence: String
        do { cadence = try context.cadence() } catch { throw .rejected(error.description) }
        let blocks = try await http.json(node.latestSealedBlock(), step: "latest sealed block", as: [FlowREST.Block].self)
        guard let block = blocks.first else { throw .retryable("latest sealed block: the access node returned none") }
        let account = try await http.json(node.account(session.address), step: "account keys", as: FlowREST.Account.self)
        var transaction: FlowTransaction
        do {
            transaction = try HyphenTransaction.unsigned(cadence: cadence, latestBlock: block, account: account,
                                                         session: session, chain: credentials.app.chain)
            try HyphenTransaction.signPayload(&transaction, key: try credentials.key(), session: session)
        } catch {
            throw .rejected("building the transaction: \(error)")
        }
        let server = try await http.json(
            try HyphenHTTP.build { try api.signTransaction(FlowSigning.payloadMessage(transaction), token: session.accessToken) },
            step: "server co-signature", as: HyphenSignResult.self)
        transaction.payloadSignatures.append(try signature(server, signer: "server", in: transaction))
        let paymaster = try await http.json(
            try HyphenHTTP.build { try api.signAsPaymaster(FlowSigning.envelopeMessage(transaction), token: session.accessToken) },
            step: "paymaster signature", as: HyphenSignResult.self)
        transaction.envelopeSignatures.append(try signature(paymaster, signer: "paymaster", in: transaction))
        let expected = FlowSigning.transactionId(transaction).hex
        let submitted = try await http.json(try HyphenHTTP.build { try node.submit(transaction) }, step: "submit transaction",
                                            as: FlowREST.SubmittedTransaction.self)
        guard submitted.id.lowercased() == expected else {
            throw .rejected("submit transaction: the access node reports id \(submitted.id), but the transaction's id is \(expected)")
        }
        return expected
    }

    private func waitForSeal(_ id: String, node: FlowAccessAPI) async throws(AnswerFailure) {
        let deadline = ContinuousClock.now + Self.sealTimeout
        var last = "not yet known"
        while ContinuousClock.now < deadline {
            do throws(AnswerFailure) {
                let result = try await http.json(node.result(ofTransaction: id), step: "transaction \(id) status",
                                                 as: FlowREST.TransactionResult.self)
                last = result.status
                if result.isExpired { throw AnswerFailure.rejected("transaction \(id) expired before it was sealed") }
                if result.isSealed {
                    guard result.statusCode == 0, result.errorMessage.isEmpty else {
                        throw AnswerFailure.rejected("transaction \(id) failed on chain: \(result.errorMessage.isEmpty ? "status code \(result.statusCode)" : result.errorMessage)")
                    }
                    return
                }
            } catch {
                guard case .retryable(let cause) = error else { throw error }
                last = "unknown (\(cause))"
            }
            try? await Task.sleep(for: Self.sealPollInterval)
            if Task.isCancelled { throw .retryable("stopped while waiting for transaction \(id) to be sealed") }
        }
        throw .rejected("transaction \(id) was not sealed within \(Self.sealTimeout.components.seconds) s (last status: \(last)); see it on a Flow explorer before trying again")
    }


    private func signature(_ result: HyphenSignResult, signer: String, in transaction: FlowTransaction)
        throws(AnswerFailure) -> FlowTransaction.Signature {
        do { return try HyphenTransaction.signature(result, signer: signer, in: transaction) }
        catch { throw .rejected("\(signer) co-signature: \(error)") }
    }
}
