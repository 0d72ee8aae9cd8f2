import Crypto
import Foundation
import PushAgentCore

/// The chain state pushsim's access node keeps: accounts with weighted keys and sequence numbers, a block counter,
/// and submitted transactions, checked the way Flow checks them (signatures over the domain-tagged payload and
/// envelope, authorizers and payer at full weight, the proposer's sequence number).
struct FlowLedger {
    struct Key {
        var publicKey: P256.Signing.PublicKey
        var hashing: String
        var weight: Int
        var sequenceNumber: UInt64 = 0
        var revoked = false
    }

    struct Submitted {
        var transaction: FlowTransaction
        var submittedAt: Date
    }

    static let fullWeight = 1000
    /// Transactions seal this long after submission (long enough for the agent to see them pending first).
    static let sealDelay: TimeInterval = 0.4

    private(set) var accounts: [FlowAddress: [Key]] = [:]
    private(set) var height: UInt64 = 1
    private(set) var transactions: [String: Submitted] = [:]

    var latestBlock: FlowREST.Block {
        FlowREST.Block(header: .init(id: Self.blockId(height).hex, height: String(height),
                                     timestamp: HyphenTimestamp.format(Date())))
    }

    static func blockId(_ height: UInt64) -> Data {
        Data(SHA256.hash(data: Data("pushsim-block-\(height)".utf8)))
    }

    mutating func create(_ address: FlowAddress, keys: [Key]) { accounts[address] = keys }

    /// Adds a key; returns its index.
    @discardableResult
    mutating func addKey(_ key: Key, to address: FlowAddress) -> UInt32 {
        accounts[address, default: []].append(key)
        return UInt32(accounts[address]!.count - 1)
    }

    func account(_ address: FlowAddress) -> FlowREST.Account? {
        accounts[address].map { keys in
            FlowREST.Account(address: address, keys: keys.enumerated().map { index, key in
                .init(index: UInt32(index), publicKey: HyphenDeviceKey.hex(of: key.publicKey), signingAlgorithm: "ECDSA_P256",
                      hashingAlgorithm: key.hashing, sequenceNumber: key.sequenceNumber, weight: key.weight,
                      revoked: key.revoked)
            })
        }
    }

    func keyIndex(of publicKeyHex: String, on address: FlowAddress) -> UInt32? {
        accounts[address]?.firstIndex { HyphenDeviceKey.hex(of: $0.publicKey) == publicKeyHex.lowercased() }.map(UInt32.init)
    }

    /// Checks and accepts a transaction; returns its id, or why Flow would refuse it.
    mutating func submit(_ transaction: FlowTransaction, now: Date) -> Result<String, Refusal> {
        let proposal = transaction.proposalKey
        guard (1...height).contains(where: { Self.blockId($0) == transaction.referenceBlockId }) else {
            return .failure("reference block \(transaction.referenceBlockId.hex) is unknown")
        }
        guard let proposer = accounts[proposal.address]?[safe: Int(proposal.keyIndex)], !proposer.revoked else {
            return .failure("proposal key \(proposal.address) #\(proposal.keyIndex) does not exist or is revoked")
        }
        guard proposer.sequenceNumber == proposal.sequenceNumber else {
            return .failure("invalid proposal key: sequence number \(proposal.sequenceNumber), expected \(proposer.sequenceNumber)")
        }
        let payload = FlowSigning.payloadMessage(transaction), envelope = FlowSigning.envelopeMessage(transaction)
        if let problem = check(transaction.payloadSignatures, over: payload, kind: "payload")
            ?? check(transaction.envelopeSignatures, over: envelope, kind: "envelope") {
            return .failure(problem)
        }
        for authorizer in transaction.authorizers where weight(of: transaction.payloadSignatures, by: authorizer) < Self.fullWeight {
            return .failure("authorizer \(authorizer) has not signed the payload with full key weight")
        }
        guard weight(of: transaction.envelopeSignatures, by: transaction.payer) >= Self.fullWeight else {
            return .failure("payer \(transaction.payer) has not signed the envelope with full key weight")
        }
        let id = FlowSigning.transactionId(transaction).hex
        accounts[proposal.address]![Int(proposal.keyIndex)].sequenceNumber += 1
        transactions[id] = Submitted(transaction: transaction, submittedAt: now)
        return .success(id)
    }

    func result(of id: String, now: Date) -> FlowREST.TransactionResult? {
        transactions[id].map {
            now.timeIntervalSince($0.submittedAt) >= Self.sealDelay
                ? .init(status: "Sealed", statusCode: 0, errorMessage: "")
                : .init(status: "Pending", statusCode: 0, errorMessage: "")
        }
    }

    func isSealed(_ id: String, now: Date) -> Bool { result(of: id, now: now)?.isSealed == true }

    mutating func advance() { height += 1 }

    private func check(_ signatures: [FlowTransaction.Signature], over message: Data, kind: String) -> Refusal? {
        for signature in signatures {
            guard let key = accounts[signature.address]?[safe: Int(signature.keyIndex)], !key.revoked else {
                return "\(kind) signature by unknown key \(signature.address) #\(signature.keyIndex)"
            }
            // Only SHA2-256 keys exist here: Hyphen's device keys, and the sim's own.
            guard FlowSigning.isValid(signature.signature, of: message, by: key.publicKey) else {
                return "\(kind) signature by \(signature.address) #\(signature.keyIndex) does not verify"
            }
        }
        return nil
    }

    private func weight(of signatures: [FlowTransaction.Signature], by address: FlowAddress) -> Int {
        Set(signatures.filter { $0.address == address }.map(\.keyIndex))
            .compactMap { accounts[address]?[safe: Int($0)]?.weight }.reduce(0, +)
    }

    struct Refusal: Error, ExpressibleByStringLiteral, ExpressibleByStringInterpolation, CustomStringConvertible {
        var description: String
        init(stringLiteral value: String) { description = value }
        init(stringInterpolation: DefaultStringInterpolation) { description = String(stringInterpolation: stringInterpolation) }
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
