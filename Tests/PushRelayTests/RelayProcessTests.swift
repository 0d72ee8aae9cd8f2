import ClusterHarness
import CurlHTTP
import Foundation
import Testing

/// Runs the built `pushrelay` executable (`swift build --product pushrelay`, or any `swift build`).
@Suite("pushrelay process")
struct RelayProcessTests {
    private static let binary = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".build/debug/pushrelay").path

    private func launch(_ arguments: [String], in workingDirectory: String? = nil) throws -> ManagedProcess {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw TestFailure("\(Self.binary) is missing: run `swift build --product pushrelay` first")
        }
        return try ManagedProcess(name: "pushrelay", executable: Self.binary, arguments: arguments, workingDirectory: workingDirectory)
    }

    @Test func readyLineHealthAndSIGTERMDuringALongPoll() async throws {
        let directory = try makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let process = try launch(
            ["--listen", "127.0.0.1:0", "--state-dir", directory, "--sender-key", "\(testProject)=\(testSenderKey)",
             "--config", "/dev/null"])
        defer { process.signal(SIGKILL) }

        let port = try #require(Int(try await process.waitForLine(startingWith: "pushrelay listening on http://127.0.0.1:",
                                                                 timeout: .seconds(10))))
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
        process.signal(SIGTERM)
        // The poll would hold 60 s; exiting well before proves SIGTERM ended it (milliseconds when idle).
        let ended = try await process.waitForExit(timeout: .seconds(10))
        let elapsed = clock.now - start
        #expect(!ended.signaled && ended.status == 0, "\(ended)")
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
        let process = try launch(["--config", "../etc/pushrelay.toml"], in: startDirectory)
        defer { process.signal(SIGKILL) }
        _ = try await process.waitForLine(startingWith: "pushrelay listening on", timeout: .seconds(10))
        #expect(FileManager.default.fileExists(atPath: configDirectory + "/state/relay.sqlite"), "beside the file")
        #expect(!FileManager.default.fileExists(atPath: startDirectory + "/state"), "not where it happened to start")
    }

    /// Issue 26: a woken poll is answered from what this process committed, so a second pushrelay on the same SQLite
    /// state (a manual start beside the service) must not run: its sends would be missed and then acknowledged away.
    @Test func aSecondRelayOnTheSameStateDirectoryIsRefused() async throws {
        let directory = try makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let arguments = ["--listen", "127.0.0.1:0", "--state-dir", directory, "--config", "/dev/null"]
        let first = try launch(arguments)
        defer { first.signal(SIGKILL) }
        _ = try await first.waitForLine(startingWith: "pushrelay listening on", timeout: .seconds(10))
        let second = try launch(arguments)
        let ended = try await second.waitForExit(timeout: .seconds(10))
        #expect(!ended.signaled && ended.status == 1, "\(ended)")
        #expect(second.text.contains("another pushrelay is already running on \(directory)"), "\(second.text)")
        #expect(first.isRunning)
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
        let process = try launch(arguments)
        let ended = try await process.waitForExit(timeout: .seconds(10))
        #expect(!ended.signaled && ended.status == 2, "\(ended)")
        #expect(process.text.contains(named), "\(process.text)")
    }
}
