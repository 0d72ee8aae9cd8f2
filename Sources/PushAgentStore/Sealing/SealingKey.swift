import Crypto
import Foundation
import PushAgentCore

/// The key-encryption key that seals the store's secrets (`SecretSealer`), and where it came from.
public struct SealingKey: Sendable {
    /// Shown by `pushctl status` as "secrets sealed by: …".
    public enum Source: String, Sendable, Codable {
        case tpm2 = "tpm2"
        case hostKey = "host key"
        case keyFile = "key file"
    }

    /// The systemd credential pushagentd.service loads with `LoadCredentialEncrypted=`; the package's postinst makes it
    /// with `systemd-creds encrypt`, bound to the TPM2 when the machine has one and to the host key otherwise.
    public static let credentialName = "pushagentd-kek"
    /// Beside the state when there is no credential (user mode, tests).
    public static let keyFileName = "secrets.key"

    let key: SymmetricKey
    public let source: Source
    /// A key file made now and not written yet: the store writes it once it knows it needs a new key, so that a
    /// store sealed under another key is refused with nothing written beside it (`written()`).
    let unwrittenKeyFile: String?

    /// Names the key without revealing it: the store records it, so that a store opened with another key (copied
    /// from another machine, a lost credential) is refused before anything is read or written.
    public var id: String {
        let digest = SHA256.hash(data: Data("pushagent sealing key id".utf8) + key.withUnsafeBytes { Data($0) })
        return digest.prefix(16).hex
    }

    init(key: SymmetricKey, source: Source, unwrittenKeyFile: String? = nil) {
        self.key = key
        self.source = source
        self.unwrittenKeyFile = unwrittenKeyFile
    }

    /// The systemd credential when `credentialsDirectory` holds one, else the key file in `stateDirectory`, made on
    /// first use (written by the store that uses it, `written()`).
    public static func load(credentialsDirectory: String?, stateDirectory: String) throws -> SealingKey {
        if let credentialsDirectory {
            let path = credentialsDirectory + "/" + credentialName
            if FileManager.default.fileExists(atPath: path) { return try fromCredential(at: path) }
        }
        return try keyFile(in: stateDirectory)
    }

    /// The credential's plaintext: `pushagent-kek v1 sealed-by=tpm2|host` on the first line, the base64 of 32 random
    /// bytes on the second (docs/security.md).
    static func fromCredential(at path: String) throws -> SealingKey {
        let text = try readText(path, what: "the systemd credential \(credentialName)")
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        guard lines.count == 2, lines[0].hasPrefix("pushagent-kek v1 sealed-by="),
              let key = Data(base64Encoded: lines[1]), key.count == 32 else {
            throw SealingError("the systemd credential \(credentialName) (\(path)) is not a pushagent sealing key: make it again with the command in docs/security.md (existing secrets then need a backup to restore)")
        }
        let source: Source = lines[0].hasSuffix("=tpm2") ? .tpm2 : .hostKey
        return SealingKey(key: SymmetricKey(data: key), source: source)
    }

    static func keyFile(in directory: String) throws -> SealingKey {
        let path = directory + "/" + keyFileName
        if !FileManager.default.fileExists(atPath: path) {
            return SealingKey(key: SymmetricKey(size: .bits256), source: .keyFile, unwrittenKeyFile: path)
        }
        var status = stat()
        guard stat(path, &status) == 0 else { throw SealingError("cannot read \(path): \(String(cString: strerror(errno)))") }
        guard status.st_mode & 0o077 == 0 else {
            throw SealingError("\(path) holds the key that seals pushagent's secrets and others may read it (mode \(String(status.st_mode & 0o777, radix: 8))): chmod 600 \(path)")
        }
        guard status.st_uid == geteuid() else {
            throw SealingError("\(path) holds the key that seals pushagent's secrets and belongs to uid \(status.st_uid), not to this user (uid \(geteuid())): chown it or use this user's own state directory")
        }
        guard let key = Data(base64Encoded: try readText(path, what: "the sealing key file").trimmingCharacters(in: .whitespacesAndNewlines)),
              key.count == 32 else {
            throw SealingError("\(path) is not a pushagent sealing key (32 bytes in base64): restore it from where you keep it, or move the state aside and restore a backup")
        }
        return SealingKey(key: SymmetricKey(data: key), source: .keyFile)
    }

    /// This key with its key file written, if it was made now; the key file another process wrote meanwhile wins.
    func written() throws -> SealingKey {
        guard let path = unwrittenKeyFile else { return self }
        guard try Self.createKeyFile(at: path, holding: key) else {
            return try Self.keyFile(in: (path as NSString).deletingLastPathComponent)
        }
        return SealingKey(key: key, source: source)
    }

    /// O_EXCL with mode 0600 from the start: the key is never readable by others, not even for a moment. False when
    /// the file exists already.
    private static func createKeyFile(at path: String, holding key: SymmetricKey) throws -> Bool {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST { return false }
            throw SealingError("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let text = Array((key.withUnsafeBytes { Data($0) }.base64EncodedString() + "\n").utf8)
        guard write(descriptor, text, text.count) == text.count, fsync(descriptor) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(path)
            throw SealingError("cannot write \(path): \(reason)")
        }
        return true
    }

    private static func readText(_ path: String, what: String) throws -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw SealingError("cannot read \(what) (\(path)): \(error.localizedDescription)")
        }
    }
}

/// The store's secrets cannot be sealed or opened; says why and what to do.
public struct SealingError: Error, CustomStringConvertible, Equatable {
    public var description: String
    init(_ description: String) { self.description = description }
}
