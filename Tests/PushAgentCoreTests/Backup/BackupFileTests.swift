import Foundation
import Testing
@testable import PushAgentCore

/// The backup file format of docs/backup.md. Small scrypt parameters keep these fast; the file carries them.
@Suite struct BackupFileTests {
    static let fast = BackupFile.KDFParameters(log2N: 10, r: 1, p: 1)
    static let passphrase = "correct horse battery"
    static let document = try! BackupDocument(createdAt: Date(timeIntervalSince1970: 1_700_000_000), accounts: [
        BackupAccount(id: "acc_1", provider: .forgerock, issuer: "ACME", name: "alice",
                      createdAt: Date(timeIntervalSince1970: 1_690_000_000), lookupKey: "mech-1",
                      credentials: Data(#"{"secret":"c2VjcmV0"}"#.utf8),
                      totp: try TOTPParameters(secret: Data("12345678901234567890".utf8)), boundToMachine: false),
    ]).encoded()

    static func sealed() throws -> Data { try BackupFile.seal(document, passphrase: passphrase, kdf: fast) }

    func open(_ file: Data, passphrase: String = Self.passphrase) -> Result<Data, BackupFileError> {
        Result { () throws(BackupFileError) in try BackupFile.open(file, passphrase: passphrase) }
    }

    @Test func aSealedDocumentOpensWithItsPassphraseAndReadsBack() throws {
        let file = try Self.sealed()
        #expect(file.starts(with: Data("PUSHAGENT-BACKUP".utf8)))
        #expect(file.count == BackupFile.headerByteCount + Self.document.count + 16)
        #expect(try open(file).get() == Self.document)
        let decoded = try BackupDocument.decode(try open(file).get())
        #expect(decoded.accounts.first?.lookupKey == "mech-1" && decoded.accounts.first?.totp?.digits == 6)
        #expect(try Self.sealed() != file, "a fresh salt and nonce every time")
    }

    @Test func theStandardParametersAreWrittenIntoTheHeader() throws {
        let file = [UInt8](try BackupFile.seal(Data("{}".utf8), passphrase: Self.passphrase))
        #expect(Array(file[16..<28]) == [0, 1, 1, 15, 0, 0, 0, 8, 0, 0, 0, 1])
    }

    @Test func aWrongPassphraseIsToldApart() throws {
        #expect(open(try Self.sealed(), passphrase: "correct horse battery!") == .failure(.wrongPassphrase))
    }

    @Test func aShortPassphraseIsRefusedWhenWriting() {
        #expect(throws: BackupFileError.passphraseTooShort) {
            try BackupFile.seal(Self.document, passphrase: "short", kdf: Self.fast)
        }
    }

    @Test(arguments: [0, 5, 17, 40, BackupFile.headerByteCount, BackupFile.headerByteCount + 16, -1])
    func aTruncatedFileIsRefused(keeping length: Int) throws {
        let file = try Self.sealed()
        let kept = length < 0 ? file.count + length : length
        switch open(file.prefix(kept)) {
        case .failure(.truncated(let size, let expected)): #expect(size == kept && expected > kept)
        case .failure(.notABackup): #expect(kept == 0, "only an empty file is 'not a backup'")
        case let other: Issue.record("\(kept) bytes: \(other)")
        }
    }

    @Test func bytesAfterTheEndAreRefused() throws {
        #expect(open(try Self.sealed() + Data([0])) == .failure(.trailingBytes(1)))
    }

    @Test func somethingElseIsNotABackup() {
        #expect(open(Data("PK\u{3}\u{4} a zip file, not a backup".utf8)) == .failure(.notABackup))
    }

    /// Header fields are authenticated: one that derives another key fails the passphrase check, the rest fail
    /// AES-GCM; either way nothing decrypts.
    @Test(arguments: [
        (30, BackupFileError.wrongPassphrase),          // salt
        (60, .tampered),                                // nonce
        (75, .wrongPassphrase),                         // passphrase check
        (BackupFile.headerByteCount + 3, .tampered),    // ciphertext
        (-1, .tampered),                                // tag
    ])
    func aFlippedByteIsRefused(at offset: Int, as expected: BackupFileError) throws {
        var file = try Self.sealed()
        let index = offset < 0 ? file.count + offset : offset
        file[index] ^= 0x01
        #expect(open(file) == .failure(expected))
    }

    @Test func aFutureFormatVersionIsRefusedBeforeAnythingElse() throws {
        var file = try Self.sealed()
        file[17] = 2
        #expect(open(file) == .failure(.futureVersion(2, supported: 1)))
        #expect(BackupFileError.futureVersion(2, supported: 1).description.contains("newer pushagent"))
        file[17] = 0
        #expect(open(file) == .failure(.unsupportedVersion(0)))
    }

    @Test func aFutureDocumentFormatIsRefused() {
        #expect(throws: BackupFileError.futureVersion(2, supported: 1)) {
            try BackupDocument.decode(Data(#"{"format":2,"accounts":"whatever comes"}"#.utf8))
        }
    }

    @Test func absurdScryptParametersAreRefusedBeforeScryptRuns() throws {
        var file = try Self.sealed()
        file[19] = 30   // log2(N): 2^30 · 128 bytes
        #expect(open(file) == .failure(.kdfOutOfBounds("N = 2^30, r = 1, p = 1: 131072 MiB")))
        file = try Self.sealed()
        file[23] = 64   // r = 64 with N = 2^10: fine for memory, but outside the accepted r
        let refused = if case .failure(.kdfOutOfBounds) = open(file) { true } else { false }
        #expect(refused, "r = 64 is outside the accepted r")
    }

    @Test func theErrorsSayDifferentThings() {
        let errors: [BackupFileError] = [.notABackup, .futureVersion(2, supported: 1), .truncated(size: 3, expected: 9),
                                         .wrongPassphrase, .tampered, .trailingBytes(1)]
        #expect(Set(errors.map(\.description)).count == errors.count)
    }

    @Test func aBoundPlusAuthAccountRestoredElsewhereIsBroken() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let bound = PlusAuthBinding(enrolledIdentity: "old", required: true)
        #expect(bound.bindsToMachine && bound.restoredElsewhere(at: now).brokenAt == now)
        let unbound = PlusAuthBinding(enrolledIdentity: "old")
        #expect(!unbound.bindsToMachine && unbound.restoredElsewhere(at: now) == unbound)
    }
}

/// Issue 24: what a restore reads is bounded and every refusal says what was found.
extension BackupFileTests {
    /// Before: 256 MiB was accepted, and a few restores at once took the machine's memory.
    @Test func scryptCostAboveTheCeilingIsRefusedSayingBoth() throws {
        var file = try Self.sealed()
        file[19] = 18   // log2(N)
        file[23] = 8    // r: 128 · 2^18 · 8 = 256 MiB
        guard case .failure(let error) = open(file), case .kdfOutOfBounds = error else {
            Issue.record("accepted: \(open(file))")
            return
        }
        #expect(error.description.contains("N = 2^18, r = 8, p = 1: 256 MiB"), "\(error)")
        #expect(error.description.contains("at most 64 MiB"), "\(error)")
    }

    /// Before: Swift's `DecodingError` dump.
    @Test func anUnknownProviderIsNamedWithItsAccountAndTheKnownOnes() throws {
        let json = String(decoding: Self.document, as: UTF8.self)
            .replacingOccurrences(of: #""provider":"forgerock""#, with: #""provider":"okta""#)
        #expect {
            try BackupDocument.decode(Data(json.utf8))
        } throws: { error in
            let text = "\(error)"
            return text.contains("acc_1") && text.contains("\"okta\"")
                && text.contains("hyphen, forgerock, plusauth, privacyidea") && !text.contains("DecodingError")
        }
    }
}
