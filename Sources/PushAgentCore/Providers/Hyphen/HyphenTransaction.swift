import Foundation

/// The Flow transaction approving a Hyphen 2FA request, built as both SDKs build it (`HyphenFlow`): proposer and
/// authorizer are the user's account with this device's key, the payer is Hyphen's paymaster, gas 9999. The device
/// key and Hyphen's server key sign the payload; the paymaster signs the envelope.
public enum HyphenTransaction {
    public static let gasLimit: UInt64 = 9999

    public enum Refusal: Error, Equatable, CustomStringConvertible {
        case keyNotOnAccount(keyIndex: UInt32, address: String)
        case keyRevoked(keyIndex: UInt32)
        case badBlockId(String)
        case badSignature(signer: String, problem: String)

        public var description: String {
            switch self {
            case .keyNotOnAccount(let index, let address):
                "the Flow account \(address) has no key \(index): this device is not registered on it (run `pushctl hyphen signin`)"
            case .keyRevoked(let index):
                "this device's key (index \(index)) was revoked on the Flow account; sign this device in again"
            case .badBlockId(let id):
                "the access node's latest block id '\(EnrollmentURIError.excerpt(id))' is not 32 bytes of hex"
            case .badSignature(let signer, let problem):
                "the \(signer) signature \(problem)"
            }
        }
    }

    /// The unsigned transaction; the sequence number is that of this device's key on the account.
    public static func unsigned(cadence: String, latestBlock: FlowREST.Block, account: FlowREST.Account,
                                session: HyphenCredentials.Session, chain: HyphenChain) throws(Refusal) -> FlowTransaction {
        guard let block = Hex.decode(latestBlock.header.id), block.count == 32 else {
            throw .badBlockId(latestBlock.header.id)
        }
        guard let key = account.keys?.first(where: { UInt32($0.index) == session.keyIndex }),
              let sequence = UInt64(key.sequenceNumber)
        else { throw .keyNotOnAccount(keyIndex: session.keyIndex, address: session.address.description) }
        guard !key.revoked else { throw .keyRevoked(keyIndex: session.keyIndex) }
        return FlowTransaction(
            script: cadence, referenceBlockId: block, gasLimit: gasLimit,
            proposalKey: .init(address: session.address, keyIndex: session.keyIndex, sequenceNumber: sequence),
            payer: chain.paymaster, authorizers: [session.address])
    }

    /// Adds the device key's payload signature.
    public static func signPayload(_ transaction: inout FlowTransaction, key: HyphenDeviceKey,
                                   session: HyphenCredentials.Session) throws {
        let signature = try key.sign(FlowSigning.payloadMessage(transaction))
        transaction.payloadSignatures.append(.init(address: session.address, keyIndex: session.keyIndex, signature: signature))
    }

    /// A signature from Hyphen's sign endpoints, checked for form and for coming from a signer of this transaction.
    public static func signature(_ result: HyphenSignResult, signer: String, in transaction: FlowTransaction)
        throws(Refusal) -> FlowTransaction.Signature {
        guard let address = FlowAddress(hex: result.signature.addr) else {
            throw .badSignature(signer: signer, problem: "names '\(EnrollmentURIError.excerpt(result.signature.addr))', not a Flow address")
        }
        guard transaction.signerIndex(of: address) != nil else {
            throw .badSignature(signer: signer, problem: "is by \(address), which is not a signer of the transaction")
        }
        guard let bytes = Hex.decode(result.signature.signature), bytes.count == 64 else {
            throw .badSignature(signer: signer, problem: "is not 64 bytes of hex (raw r‖s)")
        }
        return .init(address: address, keyIndex: result.signature.keyId, signature: bytes)
    }
}
