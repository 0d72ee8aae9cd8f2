import ClusterHarness
import Foundation
import Testing

/// `pushctl enroll` takes the URI, which holds the account's secret, from stdin or a file, where other local users
/// cannot read it as they can the process list.
struct PushCtlEnrollInputTests {
    let uri = PushCtlCLITests.forgeRockURI
    let secret = "b3uYLkQ7dRPjBaIzV0t"

    func pushctl(_ arguments: [String], input: String? = nil) async throws -> CommandResult {
        try await CommandResult.run(Binaries.path("pushctl"), ["--socket", "/nonexistent.sock"] + arguments, input: input)
    }

    func temporaryFile(_ contents: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("uri-\(UUID()).txt").path
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func readsTheURIFromStdinWithoutTheWhitespaceAroundIt() async throws {
        let result = try await pushctl(["enroll", "-", "--dry-run"], input: "  \(uri)\r\n\n")
        #expect(result.status == 0, "dry run from stdin: \(result.stderr)")
        #expect(result.stdout.contains("dev.openam.example.com"))
        #expect(!result.stderr.contains("warning"), "stdin is the recommended form: \(result.stderr)")
    }

    /// Issue 25: plain `pushctl enroll` at a terminal was a usage error; it now asks for the URI as `enroll -` does,
    /// without echoing it (it holds the account's secret). Driven through a real pseudo-terminal.
    @Test func plainEnrollAtATerminalAsksForTheURIWithoutShowingIt() async throws {
        let driver = """
            import os, pty, sys, time
            pid, fd = pty.fork()
            if pid == 0:
                os.execv(sys.argv[1], sys.argv[1:])
            seen, deadline = b"", time.time() + 60
            def read():
                global seen
                try:
                    chunk = os.read(fd, 4096)
                except OSError:
                    return False
                seen += chunk
                return bool(chunk)
            while b"press Enter" not in seen and time.time() < deadline and read():
                pass
            os.write(fd, sys.stdin.buffer.read())
            while read():
                pass
            _, status = os.waitpid(pid, 0)
            sys.stdout.write(seen.decode(errors="replace"))
            sys.exit(os.waitstatus_to_exitcode(status))
            """
        let result = try await CommandResult.run(
            "/usr/bin/python3", ["-c", driver, Binaries.path("pushctl"), "--socket", "/nonexistent.sock", "enroll", "--dry-run"],
            input: uri + "\n")
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("Paste the enrollment URI (it is not shown)"), "\(result.stdout)")
        #expect(result.stdout.contains("dev.openam.example.com"), "the dry run's summary: \(result.stdout)")
        #expect(!result.stdout.contains(secret), "the pasted URI is not echoed")
    }

    @Test func readsTheURIFromAFile() async throws {
        let file = try temporaryFile(uri + "\n")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try await pushctl(["--json", "enroll", "--uri-file", file, "--dry-run"])
        #expect(result.status == 0, "dry run from a file: \(result.stderr)")
        #expect(result.stdout.contains("\"ForgeRock\""))
        #expect(!result.stderr.contains("warning"), "a file is a recommended form: \(result.stderr)")
    }

    @Test func noURIOrSeveralAreUsageErrors() async throws {
        for input in ["", " \n\t\n"] {
            let empty = try await pushctl(["enroll", "-", "--dry-run"], input: input)
            #expect(empty.status == 2, "empty stdin \(input.debugDescription)")
            #expect(empty.stderr.contains("stdin holds no URI"), "says what is missing: \(empty.stderr)")
        }
        let two = try await pushctl(["enroll", "-", "--dry-run"], input: "\(uri)\n\(uri)\n")
        #expect(two.status == 2)
        #expect(two.stderr.contains("2 URIs"), "says why: \(two.stderr)")
        let emptyFile = try temporaryFile("\n")
        defer { try? FileManager.default.removeItem(atPath: emptyFile) }
        let fromEmptyFile = try await pushctl(["enroll", "--uri-file", emptyFile, "--dry-run"])
        #expect(fromEmptyFile.status == 2)
        #expect(fromEmptyFile.stderr.contains(emptyFile), "names the file: \(fromEmptyFile.stderr)")
    }

    /// Issue 43: a pasted sentence was "stdin holds 5 URIs"; it holds none, and the message says what one looks like.
    @Test func plainTextIsNoURIAndTheMessageShowsWhatOneLooksLike() async throws {
        let result = try await pushctl(["enroll", "-", "--dry-run"], input: "this is not a code\n")
        #expect(result.status == 2)
        #expect(result.stderr.contains("stdin holds no enrollment URI") && result.stderr.contains("pushauth://push/Issuer:account?"),
                "says what is missing and what it looks like: \(result.stderr)")
        #expect(!result.stderr.contains("URIs"), "counts no words as URIs: \(result.stderr)")
        let uriAmongText = try await pushctl(["enroll", "-", "--dry-run"], input: "my code: \(uri)\n")
        #expect(uriAmongText.status == 2)
        #expect(uriAmongText.stderr.contains("a URI and other text"), "\(uriAmongText.stderr)")
    }

    @Test func anInputTooLargeForAURIIsRefused() async throws {
        let file = try temporaryFile(String(repeating: "x", count: 70_000))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try await pushctl(["enroll", "--uri-file", file, "--dry-run"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("64 KiB"), "names the limit: \(result.stderr)")
    }

    @Test func anUnreadableFileFailsNamingIt() async throws {
        let missing = "/nonexistent/uri-\(UUID()).txt"
        let result = try await pushctl(["enroll", "--uri-file", missing, "--dry-run"])
        #expect(result.status == 1)
        #expect(result.stderr.contains(missing) && result.stderr.contains("No such file"), "says why: \(result.stderr)")
    }

    @Test func theURIComesFromOnePlaceOnly() async throws {
        let file = try temporaryFile(uri)
        defer { try? FileManager.default.removeItem(atPath: file) }
        for arguments in [["-", "--uri-file", file], [uri, "--uri-file", file], ["--uri-file", file, "--qr", file]] {
            let result = try await pushctl(["enroll", "--dry-run"] + arguments, input: uri)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("one way only"), "says what to do: \(result.stderr)")
        }
    }

    @Test func aURIArgumentStillWorksWithAWarning() async throws {
        let result = try await pushctl(["enroll", "--dry-run", uri])
        #expect(result.status == 0, "the old form keeps working: \(result.stderr)")
        #expect(result.stderr.contains("warning") && result.stderr.contains("pushctl enroll -"),
                "points to stdin: \(result.stderr)")
    }

    @Test func theSecretIsNotInTheProcessListWhileEnrolling() async throws {
        let stdin = Pipe()
        let process = try ManagedProcess(name: "pushctl", executable: Binaries.path("pushctl"), arguments: ["enroll", "-", "--dry-run"],
                                         standardInput: stdin.fileHandleForReading)
        try stdin.fileHandleForReading.close()
        defer { process.signal(SIGKILL) }
        // Read while pushctl waits for its stdin: this is what `ps` shows any local user.
        var commandLine = ""
        try await eventually("pushctl's command line is readable") {
            commandLine = (try? String(contentsOfFile: "/proc/\(process.pid)/cmdline", encoding: .utf8)) ?? ""
            return commandLine.hasPrefix(Binaries.path("pushctl"))
        }
        #expect(process.isRunning, "pushctl waits for the URI on stdin")
        #expect(!commandLine.contains(secret))
        try stdin.fileHandleForWriting.write(contentsOf: Data((uri + "\n").utf8))
        try stdin.fileHandleForWriting.close()
        let ended = try await process.waitForExit()
        let output = process.text
        #expect(!ended.signaled && ended.status == 0)
        #expect(output.contains("dev.openam.example.com"))
    }
}
