import Crypto
import Foundation

/// The device key of one Hyphen account on this machine: P-256, signing with SHA-256 (the SDKs' Keystore /
/// Secure Enclave key `SHA256withECDSA`). Its public key identifies this device to Hyphen and in pushes.
public struct HyphenDeviceKey: Sendable {
    public let privateKey: P256.Signing.PrivateKey

    public init() { privateKey = P256.Signing.PrivateKey() }

    /// From the 32-byte scalar kept in the account's credentials.
    public init(rawRepresentation: Data) throws {
        privateKey = try P256.Signing.PrivateKey(rawRepresentation: rawRepresentation)
    }

    public var rawRepresentation: Data { privateKey.rawRepresentation }

    /// Hex x‖y, each coordinate zero-padded to 32 bytes (128 digits). The Android SDK writes
    /// `BigInteger.toString(16)`, which drops leading zeros about once in 128 keys: not copied.
    public var publicKeyHex: String { Self.hex(of: privateKey.publicKey) }

    public static func hex(of publicKey: P256.Signing.PublicKey) -> String {
        // swift-crypto's raw form is exactly x‖y, each 32 bytes big-endian.
        publicKey.rawRepresentation.hex
    }

    /// The public key a Hyphen device hex (x‖y) names; nil when it is not a point on P-256.
    public static func publicKey(hex: String) -> P256.Signing.PublicKey? {
        guard let bytes = Hex.decode(hex), bytes.count == 64 else { return nil }
        return try? P256.Signing.PublicKey(rawRepresentation: bytes)
    }

    /// ECDSA P-256 over SHA-256 of `message`, raw r‖s: Flow payload signatures and the sign-in challenge alike.
    public func sign(_ message: Data) throws -> Data {
        try FlowSigning.sign(message, with: privateKey)
    }
}
