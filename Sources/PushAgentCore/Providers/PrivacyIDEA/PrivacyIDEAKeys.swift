import CryptoExtras
import Foundation

/// privacyIDEA signs in both directions with RSASSA-PKCS1-v1_5 over SHA-256 and writes signatures in padded base32
/// (protocols.md §4.3–4.5). The algorithm is pinned: there is no other to choose.
public enum PrivacyIDEASignature {
    public static func sign(_ text: String, with key: _RSA.Signing.PrivateKey) throws -> String {
        Base32.encode(try key.signature(for: Data(text.utf8), padding: .insecurePKCS1v1_5).rawRepresentation)
    }

    public static func isValid(_ signature: String, of text: String, by key: _RSA.Signing.PublicKey) -> Bool {
        guard let raw = Base32.decode(signature), raw.count == key.keySizeInBits / 8 else { return false }
        return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: raw), for: Data(text.utf8),
                                    padding: .insecurePKCS1v1_5)
    }
}

/// The agent's key pair for one token: RSA-4096, e = 65537, as the app makes it.
public struct PrivacyIDEADeviceKey: Sendable {
    public let privateKey: _RSA.Signing.PrivateKey

    public static func generate() throws -> PrivacyIDEADeviceKey {
        PrivacyIDEADeviceKey(privateKey: try _RSA.Signing.PrivateKey(keySize: .bits4096))
    }

    public init(privateKey: _RSA.Signing.PrivateKey) {
        self.privateKey = privateKey
    }

    /// From the stored PKCS#1 or PKCS#8 DER.
    public init(derRepresentation: Data) throws {
        privateKey = try _RSA.Signing.PrivateKey(derRepresentation: derRepresentation)
    }

    public var derRepresentation: Data { privateKey.derRepresentation }

    /// Step 2's `pubkey`: standard base64 of the DER SubjectPublicKeyInfo, without PEM lines.
    public var publicKeyBase64: String { privateKey.publicKey.derRepresentation.base64EncodedString() }

    public func sign(_ text: String) throws -> String { try PrivacyIDEASignature.sign(text, with: privateKey) }
}

/// The server's key for one token, as step 2's `detail.public_key` gives it: the base64 body of a PKCS#1
/// `RSAPublicKey` PEM, with its line breaks and without the header lines.
public struct PrivacyIDEAServerKey: Sendable {
    public let publicKey: _RSA.Signing.PublicKey

    public enum Refusal: Error, Equatable, CustomStringConvertible {
        case notBase64
        case notAnRSAKey
        public var description: String {
            switch self {
            case .notBase64: "the server's public key is not base64"
            case .notAnRSAKey: "the server's public key is not an RSA key of at least 2048 bits"
            }
        }
    }

    public init(pemBody: String) throws(Refusal) {
        // Header lines are tolerated too, in case a server sends the whole PEM.
        let body = pemBody.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("-----") }
            .joined().filter { !$0.isWhitespace }
        guard let der = Data(base64Encoded: body) else { throw .notBase64 }
        try self.init(der: der)
    }

    /// PKCS#1 or SubjectPublicKeyInfo DER.
    public init(der: Data) throws(Refusal) {
        do { publicKey = try _RSA.Signing.PublicKey(derRepresentation: der) }
        catch { throw .notAnRSAKey }
    }

    /// PKCS#1 DER, the form kept in the account's credentials.
    public var der: Data { publicKey.pkcs1DERRepresentation }

    public func isValid(_ signature: String, of text: String) -> Bool {
        PrivacyIDEASignature.isValid(signature, of: text, by: publicKey)
    }
}
