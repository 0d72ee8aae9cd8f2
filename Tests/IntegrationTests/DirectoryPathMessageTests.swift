import ClusterHarness
import Foundation
import Testing

/// Issue 43: a directory given where a file is read (a config file, a URI file, a backup) made the programs say
/// "NSCocoaErrorDomain error 256"; they now name the path, say it is a directory, and what they expected.
@Suite(.timeLimit(.minutes(2)))
struct DirectoryPathMessageTests {
    @Test func aDirectoryGivenForAFileIsNamedAsOne() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-file-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let runs: [(program: String, arguments: [String], expected: String)] = [
            ("pushagentd", ["--config", directory, "--check-config"], "TOML file"),
            ("pushrelay", ["--config", directory], "TOML file"),
            ("pushctl", ["enroll", "--dry-run", "--uri-file", directory], "the file that holds the URI"),
            ("pushctl", ["enroll", "--dry-run", "--qr", directory], "a PNG or JPEG picture"),
            ("pushctl", ["--socket", "/nonexistent.sock", "restore", "--passphrase-fd", "0", directory], "backup file"),
            ("pushctl", ["--socket", "/nonexistent.sock", "backup", "--passphrase-fd", "0", "--output", directory], "accounts.backup"),
        ]
        for (program, arguments, expected) in runs {
            let result = try await CommandResult.run(Binaries.path(program), arguments, input: "passphrase\n")
            #expect(result.status != 0, "\(program) \(arguments): fails")
            #expect(result.stderr.contains("\(directory) is a directory") && result.stderr.contains(expected),
                    "\(program) \(arguments): names the path, says it is a directory and what it wants: \(result.stderr)")
            #expect(!result.stderr.contains("NSCocoaErrorDomain"), "\(program) \(arguments): \(result.stderr)")
        }
    }
}
