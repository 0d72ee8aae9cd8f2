import Crypto
import CryptoExtras
import Foundation
import JWTKit

/// Where a service account's public key is registered: `--service-account PROJECT=PEM_FILE`, or
/// `[service_accounts] project = "PEM_FILE"` in the config file. Read and checked by `ServiceAccountKey.load`.
public struct ServiceAccountKeyFile: Sendable, Equatable {
    public var project: String
    public var path: String
}

// In an extension, so that Swift still writes the memberwise initialiser.
extension ServiceAccountKeyFile {
    /// Parses the `PROJECT=PEM_FILE` form of `--service-account`.
    public init?(parsing text: String) {
        guard let (project, path) = projectAssignment(text) else { return nil }
        self.init(project: project, path: path)
    }
}

/// A service account's RSA public key: RS256 assertions it verifies get access tokens for `project` (`POST /token`).
public struct ServiceAccountKey: Sendable {
    /// As jwt-kit and Google: shorter RSA keys are refused.
    public static let minimumBits = 2048

    public let project: String
    /// Hex SHA-256 of the key's SubjectPublicKeyInfo DER (`openssl pkey -pubin -in KEY -outform DER | sha256sum`).
    /// An assertion whose header `kid` (a service-account file's `private_key_id`) is this is checked against this
    /// key alone.
    public let keyID: String
    let publicKey: JWTKit.Insecure.RSA.PublicKey

    /// `origin` names the flag or config key the PEM came from, so that an error says which one to fix.
    public init(project: String, pem: String, origin: String) throws(RelayConfigError) {
        if (try? _RSA.Signing.PrivateKey(unsafePEMRepresentation: pem)) != nil {
            throw RelayConfigError(
                "\(origin): this is a private key; register its public half (`openssl pkey -in KEY -pubout`): the relay only verifies")
        }
        let key: _RSA.Signing.PublicKey
        do {
            key = try _RSA.Signing.PublicKey(unsafePEMRepresentation: pem)
        } catch {
            throw RelayConfigError("\(origin): not an RSA public key in PEM form (-----BEGIN PUBLIC KEY-----)")
        }
        guard key.keySizeInBits >= Self.minimumBits else {
            throw RelayConfigError("\(origin): the RSA key has \(key.keySizeInBits) bits; at least \(Self.minimumBits) are required")
        }
        do {
            publicKey = try JWTKit.Insecure.RSA.PublicKey(backing: key)
        } catch {
            throw RelayConfigError("\(origin): the RSA key is unusable: \(error)")
        }
        self.project = project
        keyID = SHA256.hash(data: key.derRepresentation).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// Reads and checks `file.path`; a relative path is taken from `directory`.
    public static func load(_ file: ServiceAccountKeyFile, origin: String, directory: String? = nil) throws(RelayConfigError) -> ServiceAccountKey {
        var path = file.path
        if let directory, !path.hasPrefix("/") { path = (directory as NSString).appendingPathComponent(path) }
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = access(path, R_OK) == 0 ? "not a readable file" : String(cString: strerror(errno))
            throw RelayConfigError("\(origin): cannot read \(path): \(reason)")
        }
        return try ServiceAccountKey(project: file.project, pem: String(decoding: data, as: UTF8.self), origin: "\(origin) (\(path))")
    }
}
