import Foundation
import FuzzSupport
import PushAgentCore

@_cdecl("FuzzBackupFile_main")
func fuzzMain(_ argc: Int32, _ argv: FuzzArguments) -> Int32 { FuzzDriver.run(argc, argv, testBackupFile) }

/// A backup file is what `pushctl restore` hands the daemon. The first byte picks: 0, the bytes as a file (its scrypt
/// parameters set to the cheapest the reader accepts, so each input costs a millisecond, not 32 MiB); 1, the bytes
/// as a decrypted document; 2, the bytes sealed as a document and opened again, which must give them back.
func testBackupFile(_ bytes: Data) {
    guard let (mode, rest) = FuzzInput.mode(of: bytes, count: 3) else { return }
    switch mode {
    case 0:
        var file = Data(rest)
        let cheapest: [UInt8] = [10, 0, 0, 0, 1, 0, 0, 0, 1]   // log2(N), r, p at offsets 19–27
        if file.count >= 28 { file.replaceSubrange(19..<28, with: cheapest) }
        if let document = try? BackupFile.open(file, passphrase: passphrase) { _ = try? BackupDocument.decode(document) }
    case 1:
        _ = try? BackupDocument.decode(Data(rest))
    default:
        guard let file = try? BackupFile.seal(Data(rest), passphrase: passphrase, kdf: fast) else { return }
        guard (try? BackupFile.open(file, passphrase: passphrase)) == Data(rest) else {
            fatalError("a sealed document did not open to itself")
        }
    }
}

private let passphrase = "fuzzing passphrase"
private let fast = BackupFile.KDFParameters(log2N: 10, r: 1, p: 1)
