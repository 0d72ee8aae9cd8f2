import Crypto
import Foundation

/// What Flow keys sign, and the ECDSA P-256 + SHA-256 signatures Hyphen's device key makes (raw r‖s, 64 bytes).
public enum FlowSigning {
    /// `FLOW-V0.0-transaction` right-padded with zeros to 32 bytes: prefixed to every transaction signing message so
    /// a signature over a transaction can never be replayed as a signature over anything else.
    public static let transactionDomainTag: Data = {
        let tag = Data("FLOW-V0.0-transaction".utf8)
        return tag + Data(repeating: 0, count: 32 - tag.count)
    }()

    /// What proposer and authorizers sign: domain tag ‖ RLP(payload).
    public static func payloadMessage(_ transaction: FlowTransaction) -> Data {
        transactionDomainTag + transaction.payloadRLP.encoded
    }

    /// What the payer signs: domain tag ‖ RLP(payload, payload signatures).
    public static func envelopeMessage(_ transaction: FlowTransaction) -> Data {
        transactionDomainTag + transaction.envelopeRLP.encoded
    }

    /// The id the access node reports: SHA3-256 of RLP(payload, payload signatures, envelope signatures).
    public static func transactionId(_ transaction: FlowTransaction) -> Data {
        Data(SHA3_256.hash(data: transaction.idRLP.encoded))
    }

    /// ECDSA P-256 over SHA-256 of `message`, as raw r‖s (Flow's and Hyphen's signature form, not DER).
    public static func sign(_ message: Data, with key: P256.Signing.PrivateKey) throws -> Data {
        try key.signature(for: message).rawRepresentation
    }

    /// Checks a raw r‖s P-256/SHA-256 signature; anything malformed is simply invalid.
    public static func isValid(_ signature: Data, of message: Data, by key: P256.Signing.PublicKey) -> Bool {
        guard let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
        return key.isValidSignature(parsed, for: message)
    }
}
