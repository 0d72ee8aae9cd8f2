import Foundation

/// The Flow access node's REST API (`/v1/...`), the JSON both the agent and pushsim's access node speak. Numbers
/// travel as strings, scripts, arguments and signatures as standard base64, ids as hex (fcl-js's transport-http).
public enum FlowREST {
    public struct BlockHeader: Codable, Sendable, Equatable {
        public var id: String
        public var height: String
        public var timestamp: String?

        public init(id: String, height: String, timestamp: String? = nil) {
            self.id = id
            self.height = height
            self.timestamp = timestamp
        }
    }

    /// One element of `GET /v1/blocks?height=sealed`.
    public struct Block: Codable, Sendable, Equatable {
        public var header: BlockHeader
        public init(header: BlockHeader) { self.header = header }
    }

    public struct AccountKey: Codable, Sendable, Equatable {
        public var index: String
        public var publicKey: String
        public var signingAlgorithm: String
        public var hashingAlgorithm: String
        public var sequenceNumber: String
        public var weight: String
        public var revoked: Bool

        public init(index: UInt32, publicKey: String, signingAlgorithm: String, hashingAlgorithm: String,
                    sequenceNumber: UInt64, weight: Int, revoked: Bool) {
            self.index = String(index)
            self.publicKey = publicKey
            self.signingAlgorithm = signingAlgorithm
            self.hashingAlgorithm = hashingAlgorithm
            self.sequenceNumber = String(sequenceNumber)
            self.weight = String(weight)
            self.revoked = revoked
        }

        enum CodingKeys: String, CodingKey {
            case index, publicKey = "public_key", signingAlgorithm = "signing_algorithm"
            case hashingAlgorithm = "hashing_algorithm", sequenceNumber = "sequence_number", weight, revoked
        }
    }

    /// `GET /v1/accounts/{address}?expand=keys`.
    public struct Account: Codable, Sendable, Equatable {
        public var address: FlowAddress
        public var keys: [AccountKey]?
        public init(address: FlowAddress, keys: [AccountKey]) {
            self.address = address
            self.keys = keys
        }
    }

    public struct ProposalKey: Codable, Sendable, Equatable {
        public var address: FlowAddress
        public var keyIndex: String
        public var sequenceNumber: String

        enum CodingKeys: String, CodingKey { case address, keyIndex = "key_index", sequenceNumber = "sequence_number" }
    }

    public struct Signature: Codable, Sendable, Equatable {
        public var address: FlowAddress
        public var keyIndex: String
        public var signature: String

        enum CodingKeys: String, CodingKey { case address, keyIndex = "key_index", signature }
    }

    /// The body of `POST /v1/transactions`.
    public struct Transaction: Codable, Sendable, Equatable {
        public var script: String
        public var arguments: [String]
        public var referenceBlockId: String
        public var gasLimit: String
        public var payer: FlowAddress
        public var proposalKey: ProposalKey
        public var authorizers: [FlowAddress]
        public var payloadSignatures: [Signature]
        public var envelopeSignatures: [Signature]

        enum CodingKeys: String, CodingKey {
            case script, arguments, referenceBlockId = "reference_block_id", gasLimit = "gas_limit", payer
            case proposalKey = "proposal_key", authorizers, payloadSignatures = "payload_signatures"
            case envelopeSignatures = "envelope_signatures"
        }
    }

    /// The reply to `POST /v1/transactions` (only what the agent reads).
    public struct SubmittedTransaction: Codable, Sendable, Equatable {
        public var id: String
        public init(id: String) { self.id = id }
    }

    /// `GET /v1/transaction_results/{id}`.
    public struct TransactionResult: Codable, Sendable, Equatable {
        /// `Pending`, `Finalized`, `Executed`, `Sealed` or `Expired`.
        public var status: String
        public var statusCode: Int
        public var errorMessage: String

        public init(status: String, statusCode: Int, errorMessage: String) {
            self.status = status
            self.statusCode = statusCode
            self.errorMessage = errorMessage
        }

        public var isSealed: Bool { status.caseInsensitiveCompare("Sealed") == .orderedSame }
        public var isExpired: Bool { status.caseInsensitiveCompare("Expired") == .orderedSame }

        enum CodingKeys: String, CodingKey { case status, statusCode = "status_code", errorMessage = "error_message" }
    }
}

extension FlowREST.Transaction {
    public init(_ transaction: FlowTransaction) {
        func signatures(_ list: [FlowTransaction.Signature]) -> [FlowREST.Signature] {
            list.map { .init(address: $0.address, keyIndex: String($0.keyIndex), signature: $0.signature.standardBase64) }
        }
        self.init(
            script: Data(transaction.script.utf8).standardBase64,
            arguments: transaction.arguments.map(\.standardBase64),
            referenceBlockId: transaction.referenceBlockId.hex, gasLimit: String(transaction.gasLimit),
            payer: transaction.payer,
            proposalKey: .init(address: transaction.proposalKey.address,
                               keyIndex: String(transaction.proposalKey.keyIndex),
                               sequenceNumber: String(transaction.proposalKey.sequenceNumber)),
            authorizers: transaction.authorizers,
            payloadSignatures: signatures(transaction.payloadSignatures),
            envelopeSignatures: signatures(transaction.envelopeSignatures))
    }

    /// The transaction this body describes; nil (with the reason) when a field does not decode.
    public func transaction() throws(FlowREST.Malformed) -> FlowTransaction {
        guard let scriptData = LenientBase64.decode(script), let scriptText = String(data: scriptData, encoding: .utf8)
        else { throw .init(field: "script", problem: "is not base64 of UTF-8 text") }
        let decodedArguments = try arguments.map { argument throws(FlowREST.Malformed) in
            guard let data = LenientBase64.decode(argument) else { throw .init(field: "arguments", problem: "are not base64") }
            return data
        }
        guard let block = Hex.decode(referenceBlockId), block.count == 32 else {
            throw .init(field: "reference_block_id", problem: "is not 32 bytes of hex")
        }
        guard let gas = UInt64(gasLimit) else { throw .init(field: "gas_limit", problem: "is not a whole number") }
        guard let keyIndex = UInt32(proposalKey.keyIndex), let sequence = UInt64(proposalKey.sequenceNumber) else {
            throw .init(field: "proposal_key", problem: "has a key index or sequence number that is not a whole number")
        }
        var transaction = FlowTransaction(
            script: scriptText, arguments: decodedArguments, referenceBlockId: block, gasLimit: gas,
            proposalKey: .init(address: proposalKey.address, keyIndex: keyIndex, sequenceNumber: sequence),
            payer: payer, authorizers: authorizers)
        transaction.payloadSignatures = try Self.signatures(payloadSignatures, field: "payload_signatures")
        transaction.envelopeSignatures = try Self.signatures(envelopeSignatures, field: "envelope_signatures")
        return transaction
    }

    private static func signatures(_ list: [FlowREST.Signature], field: String) throws(FlowREST.Malformed)
        -> [FlowTransaction.Signature] {
        try list.map { item throws(FlowREST.Malformed) in
            guard let keyIndex = UInt32(item.keyIndex), let signature = LenientBase64.decode(item.signature) else {
                throw .init(field: field, problem: "has a key index or signature that does not decode")
            }
            return .init(address: item.address, keyIndex: keyIndex, signature: signature)
        }
    }
}

extension FlowREST {
    public struct Malformed: Error, Sendable, Equatable, CustomStringConvertible {
        public var field: String
        public var problem: String
        public var description: String { "the transaction's \(field) \(problem)" }
    }
}
