import ArgumentParser
import ControlWire
import Foundation
import PushAgentCore

struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write an encrypted backup of every account to a file (operators only).",
        discussion: """
            pushagentd encrypts the accounts under a passphrase (scrypt, AES-256-GCM; docs/backup.md) and pushctl \
            writes the file with mode 0600. The passphrase is asked twice on the terminal, or read as one line from \
            --passphrase-fd; never give it as an argument. At least \(BackupFile.minimumPassphraseLength) characters. \
            An existing file is kept unless --force is given.
            """)
    @OptionGroup var global: GlobalOptions
    @Option(name: .shortAndLong, help: "The backup file to write.") var output: String
    @Option(name: .customLong("passphrase-fd"), help: ArgumentHelp(
        "Read the passphrase from this file descriptor, one line (for automation).", valueName: "N"))
    var passphraseFD: Int32?
    @Flag(help: "Replace the output file if it exists.") var force = false

    func run() async throws {
        do {
            try UserNamedFile.refuseDirectory(output, origin: "--output \(output)", expected: "the path of the backup file to "
                                              + "write, e.g. \((output as NSString).appendingPathComponent("accounts.backup"))")
        } catch { throw BackupCommandFailure(error.description) }
        if !force, FileManager.default.fileExists(atPath: output) {
            throw BackupCommandFailure("\(output) exists: choose another file, or give --force to replace it")
        }
        let passphrase = try PassphraseInput.read(fd: passphraseFD, confirm: true)
        guard passphrase.count >= BackupFile.minimumPassphraseLength else {
            throw ValidationError(BackupFileError.passphraseTooShort.description)
        }
        try await global.run { client in
            let backup = try await client.backup(passphrase: passphrase)
            try BackupOutput.write(backup.backup, to: output, replacing: force)
            if global.json { return try Output.json(BackupWritten(output: output, accounts: backup.accounts)) }
            Output.say("backup of \(backup.accounts) account(s) written to \(output) (mode 0600); keep the passphrase: without it the file cannot be read")
        }
    }

    /// What `--json` prints: where the file went, never its bytes.
    private struct BackupWritten: Encodable {
        var output: String
        var accounts: Int
    }
}

struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add the accounts of a backup file to this machine (operators only).",
        discussion: """
            All accounts are added, or none (a wrong passphrase or a damaged file changes nothing). Accounts already \
            here are skipped. Each provider that can be told is sent this machine's push token; accounts bound to \
            their machine (a provider's device binding) must be enrolled again. The passphrase is asked on the terminal, or read \
            as one line from --passphrase-fd.
            """)
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The backup file (written by `pushctl backup`).") var file: String
    @Option(name: .customLong("passphrase-fd"), help: ArgumentHelp(
        "Read the passphrase from this file descriptor, one line (for automation).", valueName: "N"))
    var passphraseFD: Int32?

    func run() async throws {
        let backup = try BackupOutput.read(file)
        let passphrase = try PassphraseInput.read(fd: passphraseFD, confirm: false)
        // What the daemon refuses here is the file (wrong passphrase, tampered, newer), not the command line.
        try await global.show(invalidArgument: ExitStatus.failure,
                              { try await $0.restore(backup: backup, passphrase: passphrase) }) { result in
            if result.accounts.isEmpty { return Output.say("the backup holds no accounts") }
            Output.table(["ID", "PROVIDER", "ISSUER", "NAME", "OUTCOME"], result.accounts.map {
                [$0.id, $0.provider.rawValue, $0.issuer, $0.name, $0.outcome.rawValue]
            })
            for account in result.accounts { Output.say("\(account.id): \(account.message)") }
        }
    }
}

/// A backup's passphrase: from a descriptor, or typed on the terminal without echo (twice when it is new).
enum PassphraseInput {
    static func read(fd: Int32?, confirm: Bool) throws -> String {
        if let fd { return try PasswordInput.line(from: fd, option: "--passphrase-fd") }
        guard isatty(STDIN_FILENO) != 0 else {
            throw ValidationError("no terminal to ask the passphrase on: give it as one line on a descriptor, e.g. --passphrase-fd 3 3< passphrase-file")
        }
        let passphrase = try PasswordInput.ask("Backup passphrase: ")
        if confirm, try PasswordInput.ask("The same passphrase again: ") != passphrase {
            throw BackupCommandFailure("the two passphrases differ; nothing was written")
        }
        return passphrase
    }
}

/// The backup file on disk: written whole or not at all, readable by its owner only.
enum BackupOutput {
    /// Written to a temporary file beside `path` (mode 0600 from its creation), then linked into place, which fails
    /// if `path` appeared meanwhile, or renamed over it with `replacing`.
    static func write(_ bytes: Data, to path: String, replacing: Bool) throws {
        let temporary = path + ".\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure("cannot create \(temporary)") }
        defer { unlink(temporary) }
        let written = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, synced else { throw failure("cannot write \(temporary)") }
        if replacing {
            guard rename(temporary, path) == 0 else { throw failure("cannot replace \(path)") }
        } else {
            guard link(temporary, path) == 0 else {
                throw failure(errno == EEXIST ? "\(path) exists (give --force to replace it)" : "cannot create \(path)")
            }
        }
    }

    static func read(_ path: String) throws -> Data {
        let handle: FileHandle
        do { handle = try UserNamedFile.open(path, origin: path, expected: "the backup file `pushctl backup --output FILE` wrote") }
        catch { throw BackupCommandFailure(error.description) }
        defer { try? handle.close() }
        let bytes = try handle.read(upToCount: BackupFile.maximumByteCount + 1) ?? Data()
        guard bytes.count <= BackupFile.maximumByteCount else {
            throw BackupCommandFailure("\(path) is larger than \(BackupFile.maximumByteCount) bytes: it is not a pushagent backup")
        }
        return bytes
    }

    private static func failure(_ what: String) -> BackupCommandFailure {
        BackupCommandFailure("\(what): \(String(cString: strerror(errno)))")
    }
}

/// A failure at run time (exit 1), not a usage error: the file system said no, or the passphrases differ.
struct BackupCommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
