import CurlHTTP
import Foundation
import Testing

/// Runs the built `pushrelay` executable (`swift build --product pushrelay`, or any `swift build`).
@Suite("pushrelay process")
struct RelayProcessTests {
    private static let binary = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".build/debug/pushrelay").path

    private func launch(_ arguments: [String], in workingDirectory: String? = nil) throws
        -> (Process, stdout: Pipe, stderr: Pipe, exit: AsyncStream<Process>) {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw TestFailure("\(Self.binary) is missing: run `swift build --product pushrelay` first")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments
        if let workingDirectory { process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory, isDirectory: true) }
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        let (exit, exited) = AsyncStream<Process>.makeStream()
        process.terminationHandler = { exited.yield($0); exited.finish() }
        try process.run()
        return (process, stdout, stderr, exit)
    }

    @Test func readyLineHealthAndSIGTERMDuringALongPoll() async throws {
        let directory = try makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (process, stdout, _, exit) = try launch(
            ["--listen", "127.0.0.1:0", "--state-dir", directory, "--sender-key", "\(testProject)=\(testSenderKey)",
             "--config", "/dev/null"])
        defer { if process.isRunning { process.terminate() } }

        let line = try await firstLine(of: stdout.fileHandleForReading, within: .seconds(10))
        let prefix = "pushrelay listening on http://127.0.0.1:"
        #expect(line.hasPrefix(prefix))
        let port = try #require(Int(line.dropFirst(prefix.count)))
        #expect(port > 0)
        let base = "http://127.0.0.1:\(port)"

        let health = try await CurlHTTPClient.shared.send(HTTPRequest(url: base + "/healthz"))
        #expect(health.status == 200 && health.text == "ok")

        let registration = try await CurlHTTPClient.shared.send(HTTPRequest(method: "POST", url: base + "/v1/devices"))
        let device = try JSONDecoder().decode([String: String].self, from: registration.body)
        let poll = Task {
            try await CurlHTTPClient.shared.send(HTTPRequest(
                url: base + "/v1/devices/\(device["device_id"] ?? "")/messages?wait=60",
                headers: [(name: "Authorization", value: "Bearer \(device["secret"] ?? "")")]))
        }
        for _ in 0..<500 {
            let metrics = try await CurlHTTPClient.shared.send(HTTPRequest(url: base + "/metrics"))
            if metrics.text.contains("\npushrelay_polls_waiting 1\n") { break }
            try await Task.sleep(for: .milliseconds(5))
        }

        let clock = ContinuousClock()
        let start = clock.now
        kill(process.processIdentifier, SIGTERM)
        // The poll would hold 60 s; exiting well before proves SIGTERM ended it (milliseconds when idle).
        let ended = try await withTimeout(.seconds(10)) { await exit.first { _ in true } }
        let elapsed = clock.now - start
        let finished = try #require(ended ?? nil, "pushrelay did not exit within 10 s of SIGTERM")
        #expect(finished.terminationReason == .exit)
        #expect(finished.terminationStatus == 0)
        #expect(elapsed < .seconds(10))

        let answer = try await poll.value
        #expect(answer.status == 200)
        #expect(answer.text.contains(#""messages":[]"#))
    }

    @Test func aRelativeStateDirectoryInTheConfigFileIsTakenFromTheFilesDirectory() async throws {
        let directory = try makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configDirectory = directory + "/etc", startDirectory = directory + "/elsewhere"
        for path in [configDirectory, startDirectory] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        try "listen = \"127.0.0.1:0\"\nstate_dir = \"state\"\n"
            .write(toFile: configDirectory + "/pushrelay.toml", atomically: true, encoding: .utf8)
        let (process, stdout, _, _) = try launch(["--config", "../etc/pushrelay.toml"], in: startDirectory)
        defer { if process.isRunning { process.terminate() } }
        let line = try await firstLine(of: stdout.fileHandleForReading, within: .seconds(10))
        #expect(line.hasPrefix("pushrelay listening on"))
        #expect(FileManager.default.fileExists(atPath: configDirectory + "/state/relay.sqlite"), "beside the file")
        #expect(!FileManager.default.fileExists(atPath: startDirectory + "/state"), "not where it happened to start")
    }

    @Test(arguments: [
        (["--bogus"], "--bogus"),
        (["--listen", "nowhere", "--state-dir", "/tmp"], "--listen"),
        (["--listen", "127.0.0.1:0", "--state-dir", "/tmp", "--sender-key", "no-equals"], "--sender-key"),
        (["--listen", "127.0.0.1:0", "--config", "/nonexistent/pushrelay.toml"], "--config"),
        (["--listen", "127.0.0.1:0", "--state-dir", "/tmp", "--service-account", "no-equals"], "--service-account"),
        (["--listen", "127.0.0.1:0", "--state-dir", "/tmp", "--config", "/dev/null", "--service-account", "proj=/nonexistent/key.pem"],
         "--service-account proj: cannot read /nonexistent/key.pem"),
        (["--listen", "127.0.0.1:0", "--state-dir", "/tmp", "--public-url", "ftp://relay.example"], "--public-url"),
        (["--listen", "127.0.0.1:0", "--config", "/dev/null", "--database", "postgres://relay:secret@db/push"], "password_file"),
        (["--listen", "127.0.0.1:0", "--state-dir", "/tmp", "--database", "sqlite:/tmp"], "--state-dir and --database"),
    ])
    func badFlagsExitWithStatus2(arguments: [String], named: String) async throws {
        let (_, _, stderr, exit) = try launch(arguments)
        let ended = try await withTimeout(.seconds(10)) { await exit.first { _ in true } }
        let finished = try #require(ended ?? nil)
        #expect(finished.terminationStatus == 2)
        let message = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message.contains(named), "\(message)")
    }

    private func firstLine(of handle: FileHandle, within limit: Duration) async throws -> String {
        let (chunks, continuation) = AsyncStream<Data>.makeStream()
        handle.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                continuation.finish()
            } else {
                continuation.yield(data)
            }
        }
        defer { handle.readabilityHandler = nil }
        let line = try await withTimeout(limit) { () async -> String? in
            var buffer = Data()
            for await chunk in chunks {
                buffer += chunk
                if let newline = buffer.firstIndex(of: 10) { return String(decoding: buffer[..<newline], as: UTF8.self) }
            }
            return nil
        }
        guard let line = line ?? nil else { throw TestFailure("no ready line from pushrelay") }
        return line
    }
}

/// `operation`'s result, or nil when `limit` passes first.
func withTimeout<T: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async -> T) async throws -> T? {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        let first = try await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
