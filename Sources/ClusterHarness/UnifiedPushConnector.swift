import Foundation

/// The UnifiedPush apps of the tests: scripts/unifiedpush-connector.sh, a connector written from the UnifiedPush
/// D-Bus specification with dbus-fast (PyPI), run as real processes on the test's session bus.
public enum UnifiedPushConnector {
    public static let script = Binaries.packageRoot().appendingPathComponent("scripts/unifiedpush-connector.sh").path

    /// What `register` and `unregister` print.
    public struct Result: Decodable, Sendable {
        public var success: String?
        public var reason: String?
        public var endpoint: String?
        public var error: String?
        public var message: String?
        public var unregistered: Bool?
    }

    /// One line of `serve`'s log: a call the app received.
    public struct LoggedCall: Decodable, Sendable, Equatable {
        public var service: String?
        public var interface: String?
        public var method: String?
        public var token: String?
        public var message_b64: String?
        public var id: String?
        public var endpoint: String?

        public var body: Data? { message_b64.flatMap { Data(base64Encoded: $0) } }

        public init(service: String?, interface: String?, method: String?, token: String?, message_b64: String?, id: String?,
                    endpoint: String?) {
            self.service = service
            self.interface = interface
            self.method = method
            self.token = token
            self.message_b64 = message_b64
            self.id = id
            self.endpoint = endpoint
        }
    }

    /// Installs dbus-fast into the cached venv, for a test whose connector the bus daemon starts (and would give
    /// up on while pip runs).
    public static func install() async throws {
        let installed = try await CommandResult.run("/bin/bash", [script, "install"])
        guard installed.status == 0 else { throw HarnessError("unifiedpush-connector.sh install:\n\(installed.stderr)") }
    }

    /// Runs `register` or `unregister` to its end.
    public static func run(_ arguments: [String], on bus: PrivateSessionBus) async throws -> Result {
        let ran = try await CommandResult.run("/bin/bash", [script] + arguments, environment: bus.environment)
        guard let line = ran.stdout.split(separator: "\n").last,
              let result = try? JSONDecoder().decode(Result.self, from: Data(line.utf8)) else {
            throw HarnessError("unifiedpush-connector.sh \(arguments.first ?? "") printed no result (exit \(ran.status)):\n"
                               + ran.stdout + ran.stderr)
        }
        return result
    }

    public static func register(_ service: String, token: String, version: Int, on bus: PrivateSessionBus,
                         extra: [String] = []) async throws -> Result {
        try await run(["register", "--distributor", testDistributor, "--service", service, "--token", token,
                       "--version", "\(version)"] + extra, on: bus)
    }

    /// `serve` for `services`, once it owns them all.
    public static func serve(_ services: [String], log: String, on bus: PrivateSessionBus, extra: [String] = []) async throws
        -> ManagedProcess {
        let process = try ManagedProcess(name: "unifiedpush-connector serve", executable: "/bin/bash",
                                         arguments: [script, "serve", "--log", log]
                                             + services.flatMap { ["--service", $0] } + extra,
                                         environment: bus.environment)
        // The first run installs dbus-fast into the cached venv.
        _ = try await process.waitForLine(startingWith: "{\"ready\"", timeout: .seconds(180))
        return process
    }

    public static func loggedCalls(_ log: String) -> [LoggedCall] {
        guard let text = try? String(contentsOfFile: log, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { try? JSONDecoder().decode(LoggedCall.self, from: Data($0.utf8)) }
    }
}

/// The distributor name of the tests: the default, on a bus of each test's own.
public let testDistributor = "org.unifiedpush.Distributor.pushagent"
