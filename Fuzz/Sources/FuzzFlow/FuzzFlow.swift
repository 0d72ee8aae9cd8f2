import Foundation
import FuzzSupport
@testable import PushAgentCore

@_cdecl("FuzzFlow_main")
func fuzzMain(_ argc: Int32, _ argv: FuzzArguments) -> Int32 { FuzzDriver.run(argc, argv, testFlow) }

/// Flow as Hyphen approvals use it: the access API's replies, a transaction body, Hyphen's signatures, and the RLP
/// forms built from whatever those contained. The first byte picks what the rest is.
func testFlow(_ bytes: Data) {
    guard let (mode, rest) = FuzzInput.mode(of: bytes, count: 4) else { return }
    let decoder = JSONDecoder()
    switch mode {
    case 0:
        // A transaction body (`POST /v1/transactions`): read back into a transaction, then its RLP forms.
        guard let body = try? decoder.decode(FlowREST.Transaction.self, from: rest),
              let transaction = try? body.transaction() else { return }
        encode(transaction)
        _ = FlowREST.Transaction(transaction)
    case 1:
        // The latest sealed block and the account, as the agent reads them to build an approval's transaction.
        guard let replies = try? decoder.decode(AccessReplies.self, from: rest), let block = replies.blocks.first,
              let transaction = try? HyphenTransaction.unsigned(cadence: "transaction {}", latestBlock: block,
                                                                account: replies.account, session: session, chain: .testnet)
        else { return }
        encode(transaction)
    case 2:
        // Hyphen's answer to a sign request, checked against the transaction it was asked to sign.
        guard let result = try? decoder.decode(HyphenSignResult.self, from: rest) else { return }
        _ = try? HyphenTransaction.signature(result, signer: "payer", in: transaction)
    default:
        _ = (try? decoder.decode(FlowREST.TransactionResult.self, from: rest)).map { ($0.isSealed, $0.isExpired) }
        _ = FlowAddress(hex: FuzzInput.text(rest))
    }
}

/// `GET /v1/blocks?height=sealed` (a list) and `GET /v1/accounts/{address}?expand=keys`, side by side.
private struct AccessReplies: Decodable {
    var blocks: [FlowREST.Block]
    var account: FlowREST.Account
}

private let session = HyphenCredentials.Session(accessToken: "token", refreshToken: nil,
                                                address: FlowAddress(hex: "0x01cf0e2f2f715450")!, keyIndex: 0)

private let transaction = FlowTransaction(
    script: "transaction {}", referenceBlockId: Data(count: 32), gasLimit: HyphenTransaction.gasLimit,
    proposalKey: .init(address: session.address, keyIndex: 0, sequenceNumber: 0),
    payer: HyphenChain.testnet.paymaster, authorizers: [session.address])

private func encode(_ transaction: FlowTransaction) {
    _ = FlowSigning.payloadMessage(transaction)
    _ = FlowSigning.envelopeMessage(transaction)
    _ = FlowSigning.transactionId(transaction)
}
