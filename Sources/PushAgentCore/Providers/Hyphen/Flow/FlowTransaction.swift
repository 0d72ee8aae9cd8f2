import Foundation

/// A Flow transaction and its canonical RLP forms, as flow-go-sdk's `transaction.go` and fcl-js's `encode.ts`
/// define them: the payload is what proposer and authorizers sign, the envelope (payload plus their signatures) is
/// what the payer signs, and the id hashes both with the envelope signatures.
public struct FlowTransaction: Sendable, Equatable {
    public struct ProposalKey: Sendable, Equatable {
        public var address: FlowAddress
        public var keyIndex: UInt32
        public var sequenceNumber: UInt64

        public init(address: FlowAddress, keyIndex: UInt32, sequenceNumber: UInt64) {
            self.address = address
            self.keyIndex = keyIndex
            self.sequenceNumber = sequenceNumber
        }
    }

    public struct Signature: Sendable, Equatable {
        public var address: FlowAddress
        public var keyIndex: UInt32
        public var signature: Data

        public init(address: FlowAddress, keyIndex: UInt32, signature: Data) {
            self.address = address
            self.keyIndex = keyIndex
            self.signature = signature
        }
    }

    public var script: String
    /// JSON-Cadence values, each as its UTF-8 JSON text.
    public var arguments: [Data] = []
    /// 32 bytes.
    public var referenceBlockId: Data
    public var gasLimit: UInt64
    public var proposalKey: ProposalKey
    public var payer: FlowAddress
    public var authorizers: [FlowAddress]
    public var payloadSignatures: [Signature] = []
    public var envelopeSignatures: [Signature] = []

    /// RLP of the payload: script, arguments, reference block (left-padded to 32 bytes), gas limit, proposal key,
    /// payer, authorizers.
    public var payloadRLP: RLP {
        .list([
            .text(script),
            .list(arguments.map { .bytes($0) }),
            .bytes(Self.leftPadded(referenceBlockId, to: 32)),
            .uint(gasLimit),
            .bytes(proposalKey.address.bytes),
            .uint(UInt64(proposalKey.keyIndex)),
            .uint(proposalKey.sequenceNumber),
            .bytes(payer.bytes),
            .list(authorizers.map { .bytes($0.bytes) }),
        ])
    }

    public var envelopeRLP: RLP { .list([payloadRLP, signaturesRLP(payloadSignatures)]) }

    /// The transaction id: SHA3-256 of RLP(payload, payload signatures, envelope signatures), no domain tag.
    public var idRLP: RLP { .list([payloadRLP, signaturesRLP(payloadSignatures), signaturesRLP(envelopeSignatures)]) }

    /// Signers are numbered by first appearance among proposer, payer, authorizers; signatures are ordered by signer,
    /// then key index. A signature by an address that is not a signer has no index and cannot be encoded.
    public func signerIndex(of address: FlowAddress) -> Int? {
        var signers: [FlowAddress] = []
        for candidate in [proposalKey.address, payer] + authorizers where !signers.contains(candidate) {
            signers.append(candidate)
        }
        return signers.firstIndex(of: address)
    }

    private func signaturesRLP(_ signatures: [Signature]) -> RLP {
        // A non-signer's signature sorts last with an index no signer has, so it can never verify.
        let indexed = signatures.map { (signer: signerIndex(of: $0.address) ?? Int.max, signature: $0) }
            .sorted { ($0.signer, $0.signature.keyIndex) < ($1.signer, $1.signature.keyIndex) }
        return .list(indexed.map {
            .list([.uint(UInt64($0.signer)), .uint(UInt64($0.signature.keyIndex)), .bytes($0.signature.signature)])
        })
    }

    private static func leftPadded(_ bytes: Data, to count: Int) -> Data {
        bytes.count >= count ? bytes : Data(repeating: 0, count: count - bytes.count) + bytes
    }
}
