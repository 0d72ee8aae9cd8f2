import ClusterHarness
import Foundation
import Testing

/// pushctl's contract without a daemon: exit codes and offline parsing.
struct PushCtlCLITests {
    static let forgeRockURI = "pushauth://push/forgerock:user?a=aHR0cDovL2Rldi5vcGVuYW0uZXhhbXBsZS5jb206ODA4MS9vcGVuYW0vanNvbi9kZXYvcHVzaC9zbnMvbWVzc2FnZT9fYWN0aW9uPWF1dGhlbnRpY2F0ZQ&b=519387&r=aHR0cDovL2Rldi5vcGVuYW0uZXhhbXBsZS5jb206ODA4MS9vcGVuYW0vanNvbi9kZXYvcHVzaC9zbnMvbWVzc2FnZT9fYWN0aW9uPXJlZ2lzdGVy&s=b3uYLkQ7dRPjBaIzV0t_aijoXRgMq-NP5AwVAvRfa_E&c=9giiBAdUHjqpo0XE4YdZ7pRlv0hrQYwDz8Z1wwLLbkg&l=YW1sYmNvb2tpZT0wMQ&m=REGISTER:8be951c6-af83-438d-8f74-421bd18650421570561063169&issuer=Rm9yZ2VSb2Nr"

    func pushctl(_ arguments: [String], input: String? = nil) async throws -> CommandResult {
        try await CommandResult.run(Binaries.path("pushctl"), arguments, input: input)
    }

    @Test func daemonNotRunningExitsThreeNamingTheSocket() async throws {
        let socket = FileManager.default.temporaryDirectory.appendingPathComponent("no-daemon-\(UUID()).sock").path
        let result = try await pushctl(["--socket", socket, "status"])
        #expect(result.status == 3)
        #expect(result.stderr.contains(socket), "names the socket tried: \(result.stderr)")
        #expect(result.stderr.contains("running"), "says what to check: \(result.stderr)")
    }

    /// Issue 25: "cannot reach" showed curl's "Failed to connect to localhost port 80". It now says what is at the
    /// socket's path (nothing, or a socket nobody listens on) and, when nobody named the socket, every place looked at.
    @Test func unreachableSaysWhyInTheSocketsTermsAndWhereItLooked() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushctl-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let missing = try await pushctl(["--socket", directory + "/none.sock", "status"])
        #expect(missing.status == 3)
        #expect(missing.stderr.contains("no socket there") && !missing.stderr.contains("port 80"), "\(missing.stderr)")

        let stale = directory + "/stale.sock"
        close(try ListeningSocket.unix(at: stale))
        let refused = try await pushctl(["--socket", stale, "status"])
        #expect(refused.status == 3)
        #expect(refused.stderr.contains("connection refused: nothing listens on it"), "\(refused.stderr)")

        // Not root, no runtime directory, nobody named the socket: the user's places first, then the system's.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory)
        let searched = try await CommandResult.run("/usr/bin/setpriv", [
            "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/env", "-i", "HOME=\(directory)",
            Binaries.path("pushctl"), "status"])
        #expect(searched.status == 3, "\(searched.stderr)")
        for place in ["/run/user/65534/pushagent/pushagentd.sock", directory + "/.local/state/pushagent/pushagentd.sock",
                      "/run/pushagent/pushagentd.sock"] {
            #expect(searched.stderr.contains(place), "names \(place): \(searched.stderr)")
        }
    }

    @Test func globalOptionsReachNestedCommands() async throws {
        let socket = FileManager.default.temporaryDirectory.appendingPathComponent("no-daemon-\(UUID()).sock").path
        let result = try await pushctl(["--socket", socket, "--json", "hyphen", "signin", "--account", "acc", "--credential", "c"])
        #expect(result.status == 3, "parsed, then found no daemon: \(result.stderr)")
    }

    @Test func dryRunParsesWithoutADaemonAndShowsNoSecret() async throws {
        let result = try await pushctl(["--socket", "/nonexistent.sock", "enroll", "--dry-run", Self.forgeRockURI])
        #expect(result.status == 0, "dry run: \(result.stderr)")
        #expect(result.stdout.contains("ForgeRock"))
        #expect(result.stdout.contains("user"))
        #expect(result.stdout.contains("dev.openam.example.com"))
        #expect(!result.stdout.contains("b3uYLkQ7dRPjBaIzV0t"), "the shared secret is never printed")
    }

    @Test func dryRunShowsIssuerAndAccountWithoutTerminalControls() async throws {
        let issuer = Data("\u{1B}]0;owned\u{07}Evil\u{202E}Corp\u{9B}2J".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        let hostile = Self.forgeRockURI
            .replacingOccurrences(of: "forgerock:user", with: "forgerock:us%1B%5B2Jer")
            .replacingOccurrences(of: "issuer=Rm9yZ2VSb2Nr", with: "issuer=" + issuer)
        for json in [false, true] {
            let result = try await pushctl((json ? ["--json"] : []) + ["enroll", "--dry-run", hostile])
            #expect(result.status == 0, "dry run: \(result.stderr)")
            #expect(result.stdout.contains("Evil") && result.stdout.contains("er"), "shows them: \(result.stdout)")
            let unsafe = result.stdout.unicodeScalars.filter { $0 != "\n" && ($0.properties.generalCategory == .control
                                                                             || $0.properties.isBidiControl) }
            #expect(unsafe.isEmpty, "\(json ? "--json" : "text"): no terminal controls reach the terminal: \(unsafe.map(\.value))")
        }
    }

    @Test func enrollReadsTheURIFromAQRPicture() async throws {
        let image = FileManager.default.temporaryDirectory.appendingPathComponent("qr-\(UUID()).png").path
        defer { try? FileManager.default.removeItem(atPath: image) }
        let encode = try await CommandResult.run("/usr/bin/qrencode", ["-o", image, Self.forgeRockURI])
        try #require(encode.status == 0, "qrencode: \(encode.stderr)")
        let result = try await pushctl(["enroll", "--qr", image, "--dry-run"])
        #expect(result.status == 0, "dry run from a picture: \(result.stderr)")
        #expect(result.stdout.contains("dev.openam.example.com"))

        #expect(try await pushctl(["enroll", "--qr", image, Self.forgeRockURI]).status == 2, "URI and --qr together")
        #expect(try await pushctl(["enroll"]).status == 2, "neither")
        let notAPicture = try await pushctl(["enroll", "--qr", "/etc/hostname", "--dry-run"])
        #expect(notAPicture.status == 1)
        #expect(notAPicture.stderr.contains("not a PNG or JPEG"), "says why: \(notAPicture.stderr)")
    }

    @Test func badURIIsAClearFailure() async throws {
        let result = try await pushctl(["enroll", "--dry-run", "pushauth://push/x:y?a=aGk"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("'r'") || result.stderr.contains("missing"), "names the problem: \(result.stderr)")
    }

    @Test func unknownFlagIsUsageError() async throws {
        let result = try await pushctl(["list", "--bogus"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--bogus"))
    }
}
