import Crypto
import CryptoExtras
import Foundation

/// The encrypted backup file (docs/backup.md): a fixed header, then the document encrypted with AES-256-GCM under a
/// key that scrypt derives from the passphrase. The whole header is the cipher's authenticated data, so a changed
/// version, KDF parameter, salt, nonce or length is refused like a changed ciphertext.
public enum BackupFile {
    public static let magic = Array("PUSHAGENT-BACKUP".utf8)
    public static let version: UInt16 = 1
    /// KDF identifier 1: scrypt.
    static let scryptIdentifier: UInt8 = 1
    static let saltByteCount = 32
    static let nonceByteCount = 12
    static let checkByteCount = 32
    static let tagByteCount = 16
    /// magic 16, version 2, kdf 1, log2(N) 1, r 4, p 4, salt 32, nonce 12, passphrase check 32, ciphertext length 4.
    public static let headerByteCount = 16 + 2 + 1 + 1 + 4 + 4 + saltByteCount + nonceByteCount + checkByteCount + 4
    /// Far more than any realistic set of accounts; bounds what a restore makes the daemon hold.
    public static let maximumByteCount = 1 << 20
    public static let minimumPassphraseLength = 8

    /// scrypt's cost parameters, written into the header so later versions can raise them without a new format.
    public struct KDFParameters: Sendable, Equatable {
        public var log2N: UInt8
        public var r: UInt32
        public var p: UInt32

        /// N = 2^15, r = 8, p = 1 (32 MiB, a fraction of a second), as Aegis and `scrypt`'s interactive defaults.
        public static let standard = KDFParameters(log2N: 15, r: 8, p: 1)
        /// The ceiling a reader accepts, twice what `standard` costs: scrypt's memory and time grow with 128·N·r·p
        /// bytes, so a hostile file could otherwise hold the daemon's memory and a core for as long as it likes.
        public static let maximumMemoryBytes = 64 << 20

        public init(log2N: UInt8, r: UInt32, p: UInt32) {
            self.log2N = log2N
            self.r = r
            self.p = p
        }

        /// 128·N·r·p, in floating point: a hostile header's product does not fit an Int.
        var memoryBytes: Double { 128 * Double(sign: .plus, exponent: Int(log2N), significand: 1) * Double(r) * Double(p) }

        func checkBounds() throws(BackupFileError) {
            guard (10...24).contains(log2N), (1...32).contains(r), (1...16).contains(p),
                  memoryBytes <= Double(Self.maximumMemoryBytes) else {
                throw .kdfOutOfBounds("N = 2^\(log2N), r = \(r), p = \(p): \(Int(memoryBytes / Double(1 << 20))) MiB")
            }
        }
    }

    /// Encrypts `document` under `passphrase` with a fresh random salt and nonce.
    public static func seal(_ document: Data, passphrase: String, kdf: KDFParameters = .standard) throws -> Data {
        guard passphrase.count >= minimumPassphraseLength else { throw BackupFileError.passphraseTooShort }
        try kdf.checkBounds()
        let salt = randomBytes(saltByteCount)
        let nonce = try AES.GCM.Nonce(data: randomBytes(nonceByteCount))
        let keys = try derive(passphrase: passphrase, salt: salt, kdf: kdf)
        var header = Data(magic)
        header.appendBigEndian(version)
        header.append(scryptIdentifier)
        header.append(kdf.log2N)
        header.appendBigEndian(kdf.r)
        header.appendBigEndian(kdf.p)
        header.append(contentsOf: salt)
        header.append(contentsOf: nonce)
        header.append(keys.check)
        header.appendBigEndian(UInt32(document.count))
        let box = try AES.GCM.seal(document, using: keys.encryption, nonce: nonce, authenticating: header)
        let file = header + box.ciphertext + box.tag
        guard file.count <= maximumByteCount else { throw BackupFileError.tooLarge(file.count) }
        return file
    }

    /// Decrypts a backup, or says precisely why not. Checks the cheap things (magic, version, lengths, KDF bounds)
    /// before spending scrypt's memory and time.
    public static func open(_ file: Data, passphrase: String) throws(BackupFileError) -> Data {
        let bytes = [UInt8](file)
        guard bytes.count >= magic.count + 2 else {
            throw bytes.starts(with: magic.prefix(bytes.count)) && !bytes.isEmpty
                ? .truncated(size: bytes.count, expected: headerByteCount + tagByteCount) : .notABackup
        }
        guard bytes.starts(with: magic) else { throw .notABackup }
        var reader = ByteReader(bytes: bytes, offset: magic.count)
        let fileVersion = reader.uint16()
        guard fileVersion <= version else { throw .futureVersion(Int(fileVersion), supported: Int(version)) }
        guard fileVersion == version else { throw .unsupportedVersion(Int(fileVersion)) }
        guard bytes.count >= headerByteCount + tagByteCount else {
            throw .truncated(size: bytes.count, expected: headerByteCount + tagByteCount)
        }
        let kdfIdentifier = reader.uint8()
        guard kdfIdentifier == scryptIdentifier else { throw .unsupportedKDF(kdfIdentifier) }
        let kdf = KDFParameters(log2N: reader.uint8(), r: reader.uint32(), p: reader.uint32())
        let salt = reader.take(saltByteCount)
        let nonce = reader.take(nonceByteCount)
        let check = reader.take(checkByteCount)
        let ciphertextLength = Int(reader.uint32())
        let expected = headerByteCount + ciphertextLength + tagByteCount
        guard bytes.count >= expected else { throw .truncated(size: bytes.count, expected: expected) }
        guard bytes.count == expected else { throw .trailingBytes(bytes.count - expected) }
        try kdf.checkBounds()
        let keys: DerivedKeys
        do { keys = try derive(passphrase: passphrase, salt: salt, kdf: kdf) }
        catch { throw .kdfOutOfBounds("\(error)") }
        guard constantTimeEqual([UInt8](keys.check), check) else { throw .wrongPassphrase }
        let header = Data(bytes[..<headerByteCount])
        do {
            let box = try AES.GCM.SealedBox(
                nonce: try AES.GCM.Nonce(data: nonce),
                ciphertext: bytes[headerByteCount..<(headerByteCount + ciphertextLength)],
                tag: bytes[(headerByteCount + ciphertextLength)...])
            return try AES.GCM.open(box, using: keys.encryption, authenticating: header)
        } catch {
            throw .tampered
        }
    }

    /// scrypt gives 64 bytes: the first 32 are the AES-256 key, the last 32 are stored as the passphrase check, so a
    /// wrong passphrase is told apart from a changed file (an attacker with the file learns nothing new from it: the
    /// ciphertext already lets them test guesses).
    private struct DerivedKeys {
        var encryption: SymmetricKey
        var check: Data
    }

    private static func derive(passphrase: String, salt: [UInt8], kdf: KDFParameters) throws -> DerivedKeys {
        let derived = try KDF.Scrypt.deriveKey(
            from: Array(passphrase.utf8), salt: salt, outputByteCount: 64, rounds: 1 << Int(kdf.log2N),
            blockSize: Int(kdf.r), parallelism: Int(kdf.p), maxMemory: KDFParameters.maximumMemoryBytes + (1 << 20))
        let bytes = derived.withUnsafeBytes { Data($0) }
        return DerivedKeys(encryption: SymmetricKey(data: bytes.prefix(32)), check: bytes.suffix(32))
    }

    private static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    private static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// Why a backup was not written or not read; each names the cause and, where there is one, the fix.
public enum BackupFileError: Error, Equatable, CustomStringConvertible {
    case passphraseTooShort
    case notABackup
    case futureVersion(Int, supported: Int)
    case unsupportedVersion(Int)
    case truncated(size: Int, expected: Int)
    case trailingBytes(Int)
    case unsupportedKDF(UInt8)
    case kdfOutOfBounds(String)
    case wrongPassphrase
    case tampered
    case tooLarge(Int)
    case unreadableDocument(String)
    case unknownProvider(account: String, provider: String)
    case unfitAccount(account: String, problems: [String])

    public var description: String {
        switch self {
        case .passphraseTooShort:
            "the passphrase is too short: use at least \(BackupFile.minimumPassphraseLength) characters (a few random words are best)"
        case .notABackup: "this is not a pushagent backup (it does not start with PUSHAGENT-BACKUP)"
        case .futureVersion(let found, let supported):
            "this backup has format version \(found), written by a newer pushagent; this one reads version \(supported): restore it with a newer pushagent"
        case .unsupportedVersion(let found): "this backup has format version \(found), which no pushagent writes: the file is damaged"
        case .truncated(let size, let expected):
            "the backup is truncated: it has \(size) bytes where \(expected) were expected; copy the whole file again"
        case .trailingBytes(let count):
            "the backup has \(count) bytes after its end: the file was changed or joined with something else"
        case .unsupportedKDF(let id): "the backup names key derivation \(id), which this pushagent does not know (1 is scrypt)"
        case .kdfOutOfBounds(let parameters):
            "the backup's scrypt parameters (\(parameters)) are outside what pushagent accepts (log2(N) 10–24, r 1–32, p 1–16, and 128·N·r·p at most \(BackupFile.KDFParameters.maximumMemoryBytes >> 20) MiB, the memory and time scrypt takes): the file is damaged or hostile"
        case .wrongPassphrase: "wrong passphrase (or the file's header was changed): nothing was restored"
        case .tampered:
            "the backup fails authentication: it was changed or damaged after it was written (the passphrase is right); nothing was restored"
        case .tooLarge(let size): "the backup would be \(size) bytes, more than the \(BackupFile.maximumByteCount) pushagent reads"
        case .unreadableDocument(let reason):
            "the backup decrypted, but its accounts cannot be read (\(reason)); nothing was restored"
        case .unknownProvider(let account, let provider):
            "the backup's account \"\(EnrollmentURIError.excerpt(account))\" is of the provider \"\(EnrollmentURIError.excerpt(provider))\", which this pushagent does not know (it knows \(ProviderRegistry.names)); nothing was restored"
        case .unfitAccount(let account, let problems):
            "the backup's account \"\(EnrollmentURIError.excerpt(account))\" cannot be restored: \(problems.joined(separator: "; ")); nothing was restored (the file was not written by pushagent, or was edited after)"
        }
    }
}

/// Big-endian reads from a buffer whose length was checked beforehand.
private struct ByteReader {
    let bytes: [UInt8]
    var offset: Int

    mutating func take(_ count: Int) -> [UInt8] {
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    mutating func uint8() -> UInt8 { take(1)[0] }
    mutating func uint16() -> UInt16 { take(2).reduce(0) { $0 << 8 | UInt16($1) } }
    mutating func uint32() -> UInt32 { take(4).reduce(0) { $0 << 8 | UInt32($1) } }
}

private extension Data {
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}
