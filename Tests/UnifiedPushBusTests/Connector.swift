import ClusterHarness
import Foundation

/// The apps of these tests: scripts/unifiedpush-connector.sh, a connector written from the UnifiedPush D-Bus spec
/// with dbus-fast, run as real processes on the test's bus.
enum Connector {
    static let script = Binaries.packageRoot().appendingPathComponent("scripts/unifiedpush-connector.sh").path

    /// What `register` and `unregister` print.
    struct Result: Decodable, Sendable {
        var success: String?
        var reason: String?
        var endpoint: String?
        var error: String?
        var message: String?
        var unregistered: Bool?
    }

    /// One line of `serve`'s log: a call the app received.
    struct LoggedCall: Decodable, Sendable, Equatable {
        var service: String?
        var interface: String?
        var method: String?
        var token: String?
        var message_b64: String?
        var id: String?
        var endpoint: String?

        var body: Data? { message_b64.flatMap { Data(base64Encoded: $0) } }
    }

    /// Installs dbus-fast into the cached venv, for a test whose connector the bus daemon starts (and would give
    /// up on while pip runs).
    static func install() async throws {
        let installed = try await CommandResult.run("/bin/bash", [script, "install"])
        guard installed.status == 0 else { throw HarnessError("unifiedpush-connector.sh install:\n\(installed.stderr)") }
    }

    /// Runs `register` or `unregister` to its end.
    static func run(_ arguments: [String], on bus: TestSessionBus) async throws -> Result {
        let ran = try await CommandResult.run("/bin/bash", [script] + arguments, environment: bus.environment)
        guard let line = ran.stdout.split(separator: "\n").last,
              let result = try? JSONDecoder().decode(Result.self, from: Data(line.utf8)) else {
            throw HarnessError("unifiedpush-connector.sh \(arguments.first ?? "") printed no result (exit \(ran.status)):\n"
                               + ran.stdout + ran.stderr)
        }
        return result
    }

    static func register(_ service: String, token: String, version: Int, on bus: TestSessionBus,
                         extra: [String] = []) async throws -> Result {
        try await run(["register", "--distributor", testDistributor, "--service", service, "--token", token,
                       "--version", "\(version)"] + extra, on: bus)
    }

    /// `serve` for `services`, once it owns them all.
    static func serve(_ services: [String], log: String, on bus: TestSessionBus, extra: [String] = []) async throws
        -> ManagedProcess {
        let process = try ManagedProcess(name: "unifiedpush-connector serve", executable: "/bin/bash",
                                         arguments: [script, "serve", "--log", log]
                                             + services.flatMap { ["--service", $0] } + extra,
                                         environment: bus.environment)
        // The first run installs dbus-fast into the cached venv.
        _ = try await process.waitForLine(startingWith: "{\"ready\"", timeout: .seconds(180))
        return process
    }

    static func loggedCalls(_ log: String) -> [LoggedCall] {
        guard let text = try? String(contentsOfFile: log, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { try? JSONDecoder().decode(LoggedCall.self, from: Data($0.utf8)) }
    }
}

/// Each test's distributor name: the default, on a bus of the test's own.
let testDistributor = "org.unifiedpush.Distributor.pushagent"
