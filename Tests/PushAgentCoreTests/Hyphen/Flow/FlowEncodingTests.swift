import Foundation
import Testing
@testable import PushAgentCore

/// Flow's canonical transaction encodings against the Flow project's own vectors:
/// - onflow/fcl-js `packages/sdk/src/encode/encode.test.ts` ("encode transaction": payload and envelope messages with
///   the domain tag; "encode txId from voucher": transaction ids, "calculated using Flow Go SDK test code");
/// - onflow/flow-go-sdk `transaction_test.go` (`TestTransaction_RLPMessages`, the same cases without the tag, and
///   `ExampleTransaction`'s ids before and after signing).
@Suite struct FlowEncodingTests {
    static let tag = "464c4f572d56302e302d7472616e73616374696f6e0000000000000000000000"
    static let signature = Hex.decode("f7225388c1d69d57e6251c9fda50cbbf9e05131e5adb81e5aa0422402f048162")!

    static func address(_ hex: String) -> FlowAddress { FlowAddress(hex: hex)! }

    /// fcl-js `baseTx`: one payload signature by 0x01 key 4.
    static func base(script: String = #"transaction { execute { log("Hello, World!") } }"#,
                     block: String = "f0e4c2f76c58916ec258f246851bea091d14d4247a2fc3e18694461b1816e13b",
                     gas: UInt64 = 42, keyIndex: UInt32 = 4, sequence: UInt64 = 10,
                     authorizers: [String] = ["01"]) -> FlowTransaction {
        var transaction = FlowTransaction(
            script: script, referenceBlockId: Hex.decode(block)!, gasLimit: gas,
            proposalKey: .init(address: address("01"), keyIndex: keyIndex, sequenceNumber: sequence),
            payer: address("01"), authorizers: authorizers.map(address))
        transaction.payloadSignatures = [.init(address: address("01"), keyIndex: 4, signature: signature)]
        return transaction
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var transaction: FlowTransaction
        var payload: String?
        var envelope: String
        var testDescription: String { name }
    }

    static let head = "b07472616e73616374696f6e207b2065786563757465207b206c6f67282248656c6c6f2c20576f726c64212229207d207dc0a0"
    static let block = "f0e4c2f76c58916ec258f246851bea091d14d4247a2fc3e18694461b1816e13b"
    static let signatures = "e4e38004a0f7225388c1d69d57e6251c9fda50cbbf9e05131e5adb81e5aa0422402f048162"

    static let cases: [Case] = [
        Case(name: "complete tx", transaction: base(),
             payload: "f872" + head + block + "2a880000000000000001040a880000000000000001c9880000000000000001",
             envelope: "f899f872" + head + block + "2a880000000000000001040a880000000000000001c9880000000000000001" + signatures),
        Case(name: "empty cadence", transaction: base(script: ""),
             payload: "f84280c0a0" + block + "2a880000000000000001040a880000000000000001c9880000000000000001",
             envelope: "f869f84280c0a0" + block + "2a880000000000000001040a880000000000000001c9880000000000000001" + signatures),
        Case(name: "null refBlock", transaction: base(block: ""),
             payload: "f872" + head + String(repeating: "0", count: 64) + "2a880000000000000001040a880000000000000001c9880000000000000001",
             envelope: "f899f872" + head + String(repeating: "0", count: 64) + "2a880000000000000001040a880000000000000001c9880000000000000001" + signatures),
        Case(name: "zero computeLimit", transaction: base(gas: 0),
             payload: "f872" + head + block + "80880000000000000001040a880000000000000001c9880000000000000001",
             envelope: "f899f872" + head + block + "80880000000000000001040a880000000000000001c9880000000000000001" + signatures),
        Case(name: "zero proposalKey.key", transaction: base(keyIndex: 0),
             payload: "f872" + head + block + "2a880000000000000001800a880000000000000001c9880000000000000001",
             envelope: "f899f872" + head + block + "2a880000000000000001800a880000000000000001c9880000000000000001" + signatures),
        Case(name: "zero proposalKey.sequenceNum", transaction: base(sequence: 0),
             payload: "f872" + head + block + "2a8800000000000000010480880000000000000001c9880000000000000001",
             envelope: "f899f872" + head + block + "2a8800000000000000010480880000000000000001c9880000000000000001" + signatures),
        Case(name: "empty authorizers", transaction: base(authorizers: []),
             payload: "f869" + head + block + "2a880000000000000001040a880000000000000001c0",
             envelope: "f890f869" + head + block + "2a880000000000000001040a880000000000000001c0" + signatures),
        Case(name: "multiple authorizers", transaction: base(authorizers: ["01", "02"]),
             payload: "f87b" + head + block + "2a880000000000000001040a880000000000000001d2880000000000000001880000000000000002",
             envelope: "f8a2f87b" + head + block + "2a880000000000000001040a880000000000000001d2880000000000000001880000000000000002" + signatures),
        Case(name: "empty payloadSigs", transaction: { var t = base(); t.payloadSignatures = []; return t }(), payload: nil,
             envelope: "f875f872" + head + block + "2a880000000000000001040a880000000000000001c9880000000000000001c0"),
        Case(name: "zero payloadSigs.0.key", transaction: { var t = base(); t.payloadSignatures[0].keyIndex = 0; return t }(), payload: nil,
             envelope: "f899f872" + head + block + "2a880000000000000001040a880000000000000001c9880000000000000001e4e38080a0f7225388c1d69d57e6251c9fda50cbbf9e05131e5adb81e5aa0422402f048162"),
        // fcl writes these signatures as "a", "b", "c": odd hex that Node's Buffer decodes to no bytes.
        Case(name: "out-of-order payloadSigs -- by signer", transaction: {
            var t = base(authorizers: ["01", "02", "03"])
            t.payloadSignatures = ["03", "01", "02"].map { .init(address: address($0), keyIndex: 0, signature: Data()) }
            return t
        }(), payload: nil,
             envelope: "f893f884" + head + block + "2a880000000000000001040a880000000000000001db880000000000000001880000000000000002880000000000000003ccc3808080c3018080c3028080"),
        Case(name: "out-of-order payloadSigs -- by key ID", transaction: {
            var t = base()
            t.payloadSignatures = [2, 0, 1].map { .init(address: address("01"), keyIndex: $0, signature: Data()) }
            return t
        }(), payload: nil,
             envelope: "f881f872" + head + block + "2a880000000000000001040a880000000000000001c9880000000000000001ccc3808080c3800180c3800280"),
    ]

    @Test(arguments: cases) func payloadAndEnvelopeMessages(_ vector: Case) {
        if let payload = vector.payload {
            #expect(FlowSigning.payloadMessage(vector.transaction).hex == Self.tag + payload)
            #expect(vector.transaction.payloadRLP.encoded.hex == payload, "flow-go-sdk's form, without the tag")
        }
        #expect(FlowSigning.envelopeMessage(vector.transaction).hex == Self.tag + vector.envelope)
    }

    @Test(arguments: [
        ("complete tx", base(), "118d6462f1c4182501d56f04a0cd23cf685283194bb316dceeb215b353120b2b"),
        ("complete tx with envelope sig", {
            var t = base()
            t.envelopeSignatures = [.init(address: address("01"), keyIndex: 4, signature: signature)]
            return t
        }(), "363172029cc6bfc5df3f99e84393e82b6c11e2a920c0e8c3229d077ae8bc31f7"),
        ("empty cadence", base(script: ""), "41dbbb83852ec8aa84dbeff03e29c0ed9c4a17b374eb0aa81695d83ccb344faf"),
        ("null refBlock", base(block: ""), "b01ac14da3e2a64e4c2e0a341ae2da832ff366b4c18b665fdd1fb5837e6128e0"),
        ("zero computeLimit", base(gas: 0), "c149bf2077e174ccbf190f28eecda915f355333afb247f5c2ec44c2d041faf64"),
        ("zero proposalKey.key", base(keyIndex: 0), "1627bf4a626af55e0230b466b3828cb54822e53585f704e99a37abbbe6fbe51a"),
        ("zero proposalKey.sequenceNum", base(sequence: 0), "3e9541ecee13b87a1c7be5e9ef0a00e4d48937a6f3df25167ffab2d4b4c846f4"),
        ("multiple authorizers", base(authorizers: ["01", "02"]), "6c4b45769cabadf30a103693195845ae633907f701cdcfa775bb830b6c80cb5b"),
        ("empty payloadSigs", { var t = base(); t.payloadSignatures = []; return t }(),
         "c56b673a57fb94d546b9c30ac637d20021d04faf046e2cd5ea32591b7175794e"),
        ("out-of-order payloadSigs -- by signer", {
            var t = base(authorizers: ["01", "02", "03"])
            t.payloadSignatures = ["03", "01", "02"].map { .init(address: address($0), keyIndex: 0, signature: signature) }
            return t
        }(), "b67576744b0d051ba81e4d6635a47b9c8973b3adc7410bcd213880d5094b264a"),
        ("out-of-order payloadSigs -- by key ID", {
            var t = base()
            t.payloadSignatures = [2, 0, 1].map { .init(address: address("01"), keyIndex: $0, signature: signature) }
            return t
        }(), "183a74ecc0782fbffc364cac0c404ee01144ae258841b806a6274259bfc7ef8b"),
    ])
    func transactionIds(_ name: String, _ transaction: FlowTransaction, _ id: String) {
        #expect(FlowSigning.transactionId(transaction).hex == id, "\(name)")
    }

    /// flow-go-sdk `ExampleTransaction`: the payer (signer 1) differs from proposer and authorizer (signer 0).
    @Test func goSDKExampleTransaction() {
        let adrian = Self.address("f8d6e0586b0a20c7"), blaine = Self.address("ee82856bf20e2aa6")
        var transaction = FlowTransaction(
            script: #"transaction { execute { log("Hello, World!") } }"#,
            referenceBlockId: Data([0x01, 0x02]) + Data(repeating: 0, count: 30), gasLimit: 42,
            proposalKey: .init(address: adrian, keyIndex: 3, sequenceNumber: 42), payer: blaine, authorizers: [adrian])
        #expect(FlowSigning.transactionId(transaction).hex == "8c362dd8b7553d48284cecc94d2ab545d513b29f930555632390fff5ca9772ee")
        transaction.payloadSignatures = [.init(address: adrian, keyIndex: 3, signature: Data([1])),
                                         .init(address: adrian, keyIndex: 2, signature: Data([2]))]
        transaction.envelopeSignatures = [.init(address: blaine, keyIndex: 7, signature: Data([3]))]
        #expect(transaction.signerIndex(of: blaine) == 1)
        #expect(FlowSigning.transactionId(transaction).hex == "d1a2c58aebfce1050a32edf3568ec3b69cb8637ae090b5f7444ca6b2a8de8f8b")
    }

    @Test func restFormRoundTrips() throws {
        var transaction = Self.base()
        transaction.arguments = [Data(#"{"type":"String","value":"foo"}"#.utf8)]
        transaction.envelopeSignatures = [.init(address: Self.address("02"), keyIndex: 1, signature: Self.signature)]
        let rest = FlowREST.Transaction(transaction)
        #expect(rest.referenceBlockId == Self.block)
        #expect(rest.payer.hex == "0000000000000001")
        let decoded = try JSONDecoder().decode(FlowREST.Transaction.self, from: try JSONEncoder().encode(rest))
        #expect(try decoded.transaction() == transaction)
    }

    @Test func malformedRESTTransactionSaysWhichField() throws {
        var rest = FlowREST.Transaction(Self.base())
        rest.referenceBlockId = "abc"
        #expect(throws: FlowREST.Malformed(field: "reference_block_id", problem: "is not 32 bytes of hex")) {
            try rest.transaction()
        }
    }
}
