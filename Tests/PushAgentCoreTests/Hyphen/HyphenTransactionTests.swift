import Foundation
import Testing
@testable import PushAgentCore

/// The approving transaction as the SDKs build it.
@Suite struct HyphenTransactionTests {
    static let address = FlowAddress(hex: "0x01cf0e2f2f715450")!
    static let session = HyphenCredentials.Session(accessToken: "t", refreshToken: nil, address: address, keyIndex: 1)
    static let block = FlowREST.Block(header: .init(id: String(repeating: "ab", count: 32), height: "7"))
    static func account(sequence: UInt64 = 5, revoked: Bool = false) -> FlowREST.Account {
        FlowREST.Account(address: address, keys: [
            .init(index: 0, publicKey: "00", signingAlgorithm: "ECDSA_P256", hashingAlgorithm: "SHA3_256",
                  sequenceNumber: 0, weight: 1000, revoked: false),
            .init(index: 1, publicKey: "11", signingAlgorithm: "ECDSA_P256", hashingAlgorithm: "SHA2_256",
                  sequenceNumber: sequence, weight: 1000, revoked: revoked),
        ])
    }

    @Test func builtAsTheSDKsBuildIt() throws {
        let transaction = try HyphenTransaction.unsigned(cadence: "transaction {}", latestBlock: Self.block,
                                                         account: Self.account(), session: Self.session, chain: .testnet)
        #expect(transaction.gasLimit == 9999 && transaction.arguments.isEmpty)
        #expect(transaction.proposalKey == .init(address: Self.address, keyIndex: 1, sequenceNumber: 5))
        #expect(transaction.payer == HyphenChain.testnet.paymaster && transaction.authorizers == [Self.address])
        #expect(transaction.referenceBlockId == Data(repeating: 0xAB, count: 32))
    }

    @Test func refusesWhatCannotWork() {
        #expect(throws: HyphenTransaction.Refusal.keyNotOnAccount(keyIndex: 1, address: "0x01cf0e2f2f715450")) {
            try HyphenTransaction.unsigned(cadence: "c", latestBlock: Self.block,
                                           account: FlowREST.Account(address: Self.address, keys: []),
                                           session: Self.session, chain: .testnet)
        }
        #expect(throws: HyphenTransaction.Refusal.keyRevoked(keyIndex: 1)) {
            try HyphenTransaction.unsigned(cadence: "c", latestBlock: Self.block, account: Self.account(revoked: true),
                                           session: Self.session, chain: .testnet)
        }
        #expect(throws: HyphenTransaction.Refusal.badBlockId("zz")) {
            try HyphenTransaction.unsigned(cadence: "c", latestBlock: .init(header: .init(id: "zz", height: "1")),
                                           account: Self.account(), session: Self.session, chain: .testnet)
        }
    }

    @Test func coSignaturesMustComeFromSigners() throws {
        let transaction = try HyphenTransaction.unsigned(cadence: "c", latestBlock: Self.block, account: Self.account(),
                                                         session: Self.session, chain: .testnet)
        let good = HyphenSignResult(signature: .init(addr: "0x01cf0e2f2f715450", keyId: 0, signature: String(repeating: "0a", count: 64)))
        #expect(try HyphenTransaction.signature(good, signer: "server", in: transaction).keyIndex == 0)
        let stranger = HyphenSignResult(signature: .init(addr: "0x02", keyId: 0, signature: String(repeating: "0a", count: 64)))
        expectError("the server signature is by 0x0000000000000002, which is not a signer of the transaction") {
            try HyphenTransaction.signature(stranger, signer: "server", in: transaction)
        }
        let short = HyphenSignResult(signature: .init(addr: "0x01cf0e2f2f715450", keyId: 0, signature: "abcd"))
        expectError("the paymaster signature is not 64 bytes of hex (raw r‖s)") {
            try HyphenTransaction.signature(short, signer: "paymaster", in: transaction)
        }
    }
}
