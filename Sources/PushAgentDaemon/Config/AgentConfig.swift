import ControlWire
import Foundation
import Logging
import PushAgentCore
import TOMLKit

/// pushagentd's settings. Every key comes from the TOML file, then `PUSHAGENT_<KEY>` from the environment, then flags.
public struct AgentConfig: Sendable, Equatable {
    public var relayURL: String?
    public var relayRegistrationKey: String?
    public var deviceName: String
    public var stateDirectory: String
    public var socketPath: String
    public var operators: [String]
    public var logLevel: Logger.Level
    /// How long one relay long-poll may hold (the relay caps it at 60).
    public var pollWaitSeconds: Int
    public var backoffInitialSeconds: Double
    public var backoffMaxSeconds: Double
    /// How long approve/deny wait for the provider's answer before returning the approval still in progress.
    public var answerWaitSeconds: Double
    /// Each provider's own settings.
    var providers = ProviderSettings()
    /// How long a control connection has to deliver a complete request, from opening or from its previous
    /// answer; idle, trickling and stalled connections are closed after it (read at start).
    public var controlRequestTimeoutSeconds: Double
    /// Control connections one uid may have open at once; more are answered 503 and closed (read at start).
    public var controlConnectionsPerUID: Int
    /// Pushes one account may bring per window before the rest are denied unseen (push bombing); limit 0 for none.
    public var pushBudget: PushBudget
    /// How long `pushctl deny --fraud` mutes the account; 0 mutes nothing.
    public var fraudMuteSeconds: Double
    /// Whether a new request that looks like a pending one of the same account replaces it (the older is denied).
    public var collapseSimilarPending: Bool
    /// The PAM service that checks the password of a non-root operator approving a verify approval, and the
    /// directory of its file (nil: /etc/pam.d).
    public var userVerificationPAMService = "pushagent"
    public var userVerificationPAMDirectory: String?
    /// Where the settings came from, for `--check-config` and logs.
    public var source: String

    /// The keys a config file may hold; anything else is a typo worth an error.
    static let keys: Set<String> = Set([
        "relay_url", "relay_registration_key", "device_name", "state_dir", "socket", "operators", "log_level",
        "poll_wait_seconds", "backoff_initial_seconds", "backoff_max_seconds", "answer_wait_seconds",
        "control_request_timeout_seconds", "control_connections_per_uid",
        "push_limit_per_account", "push_limit_window_seconds", "fraud_mute_seconds", "collapse_similar_pending",
        "user_verification_pam_service", "user_verification_pam_dir",
    ] + ProviderSettings.keys)

    /// Defaults for the mode: a system service (root, or started with a config file) or a user's daemon (XDG dirs).
    static func defaults(systemMode: Bool, environment: [String: String]) -> AgentConfig {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let stateDirectory = environment["STATE_DIRECTORY"]?.split(separator: ":").first.map(String.init)
            ?? (systemMode ? "/var/lib/pushagent"
                : (XDGBaseDirectory.path("XDG_STATE_HOME", in: environment) ?? home + "/.local/state") + "/pushagent")
        // Where ControlSocket's search order looks (docs/control-api.md, "Socket").
        let socketPath = systemMode ? ControlSocket.systemPath
            : ControlSocket.runtimePath(environment: environment) ?? stateDirectory + "/pushagentd.sock"
        return AgentConfig(
            relayURL: nil, relayRegistrationKey: nil, deviceName: ProcessInfo.processInfo.hostName,
            stateDirectory: stateDirectory, socketPath: socketPath, operators: [], logLevel: .info,
            pollWaitSeconds: 30, backoffInitialSeconds: 1, backoffMaxSeconds: 60, answerWaitSeconds: 10,
            controlRequestTimeoutSeconds: 10, controlConnectionsPerUID: 64,
            pushBudget: PushBudget(limit: 5, window: 60), fraudMuteSeconds: 1200, collapseSimilarPending: true,
            source: "defaults")
    }

    /// `file` is absolute: relative paths in it are taken from its directory.
    mutating func apply(toml text: String, file: String) throws(ConfigError) {
        let table: TOMLTable
        do { table = try TOMLTable(string: text) }
        catch let error as TOMLParseError {
            throw ConfigError("\(file): line \(error.source.begin.line): \(error.description)")
        } catch { throw ConfigError("\(file): \(error)") }
        for key in table.keys where !Self.keys.contains(key) && key != "fcm_apps" {
            throw ConfigError("\(file): unknown key '\(key)' (known keys: \(Self.keys.sorted().joined(separator: ", ")))")
        }
        let fileDirectory = (file as NSString).deletingLastPathComponent
        for key in table.keys {
            guard let value = table[key] else { continue }
            if key == "operators" {
                operators = try Self.strings(value, key, file)
            } else if key == "fcm_apps" {
                try applyFCMApps(value, file: file)
            } else if key == "fcm_providers", value.array != nil {
                try set(key, try Self.strings(value, key, file).joined(separator: ","), origin: file, relativeTo: fileDirectory)
            } else if let string = value.string {
                try set(key, string, origin: file, relativeTo: fileDirectory)
            } else if let int = value.int {
                try set(key, String(int), origin: file, relativeTo: fileDirectory)
            } else if let double = value.double {
                try set(key, String(double), origin: file, relativeTo: fileDirectory)
            } else if let bool = value.bool {
                try set(key, String(bool), origin: file, relativeTo: fileDirectory)
            } else {
                throw ConfigError("\(file): '\(key)' has a value of the wrong type")
            }
        }
        source = file
    }

    /// `[fcm_apps.NAME]` tables: a Firebase app each, besides the flat keys' `default` (docs/fcm.md).
    private mutating func applyFCMApps(_ value: any TOMLValueConvertible, file: String) throws(ConfigError) {
        guard let apps = value.table else { throw ConfigError("\(file): 'fcm_apps' must hold tables: [fcm_apps.NAME]") }
        for name in apps.keys {
            guard let app = apps[name]?.table else { throw ConfigError("\(file): 'fcm_apps.\(name)' must be a table: [fcm_apps.\(name)]") }
            for key in app.keys {
                guard let item = app[key] else { continue }
                let text: String
                if key == "providers" { text = try Self.strings(item, "fcm_apps.\(name).providers", file).joined(separator: ",") }
                else if let string = item.string { text = string }
                else if let int = item.int { text = String(int) }
                else { throw ConfigError("\(file): 'fcm_apps.\(name).\(key)' must be a string") }
                try providers.fcm.setApp(name, key, text, origin: file)
            }
        }
    }

    private static func strings(_ value: any TOMLValueConvertible, _ key: String, _ file: String) throws(ConfigError) -> [String] {
        guard let array = value.array else { throw ConfigError("\(file): '\(key)' must be an array of strings") }
        return try array.map { item throws(ConfigError) in
            guard let string = item.string else { throw ConfigError("\(file): '\(key)' must hold strings") }
            return string
        }
    }

    mutating func apply(environment: [String: String], workingDirectory: String) throws(ConfigError) {
        for key in Self.keys.sorted() {
            let name = "PUSHAGENT_" + key.uppercased()
            guard let value = environment[name] else { continue }
            if key == "operators" {
                operators = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            } else {
                try set(key, value, origin: "environment variable \(name)", relativeTo: workingDirectory)
            }
        }
    }

    /// Sets one key from text, validating it; `origin` names where the bad value came from, and a relative path is
    /// taken from `directory` (ConfigPaths).
    mutating func set(_ key: String, _ value: String, origin: String, relativeTo directory: String) throws(ConfigError) {
        var value = value
        if ConfigPaths.keys.contains(key) {
            guard !value.isEmpty else { throw ConfigError("\(origin): '\(key)' must name a path, not be empty") }
            value = ConfigPaths.absolute(value, relativeTo: directory)
        }
        if try providers.set(key, value, origin: origin) { return }
        func number(_ range: ClosedRange<Double>) throws(ConfigError) -> Double {
            try ConfigValue.number(value, key: key, in: range, origin: origin)
        }
        switch key {
        case "relay_url":
            guard let url = URL(string: value), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw ConfigError("\(origin): 'relay_url' must be an http(s) URL, not '\(value)'")
            }
            relayURL = value.hasSuffix("/") ? String(value.dropLast()) : value
        case "relay_registration_key": relayRegistrationKey = value.isEmpty ? nil : value
        case "device_name": deviceName = value
        case "state_dir": stateDirectory = value
        case "socket": socketPath = value
        case "operators": operators = [value]
        case "log_level":
            guard let level = Logger.Level(rawValue: value.lowercased()) else {
                throw ConfigError("\(origin): 'log_level' must be one of trace, debug, info, notice, warning, error, critical")
            }
            logLevel = level
        case "poll_wait_seconds": pollWaitSeconds = Int(try number(1...60))
        case "backoff_initial_seconds": backoffInitialSeconds = try number(0.05...600)
        case "backoff_max_seconds": backoffMaxSeconds = try number(0.1...3600)
        case "answer_wait_seconds": answerWaitSeconds = try number(0...120)
        case "control_request_timeout_seconds": controlRequestTimeoutSeconds = try number(0.1...300)
        case "control_connections_per_uid": controlConnectionsPerUID = Int(try number(1...100_000))
        case "push_limit_per_account": pushBudget.limit = Int(try number(0...10_000))
        case "push_limit_window_seconds": pushBudget.window = try number(1...86_400)
        case "fraud_mute_seconds": fraudMuteSeconds = try number(0...30 * 86_400)
        case "collapse_similar_pending":
            guard let flag = Bool(value.lowercased()) else {
                throw ConfigError("\(origin): 'collapse_similar_pending' must be true or false, not '\(value)'")
            }
            collapseSimilarPending = flag
        case "user_verification_pam_service":
            guard !value.isEmpty, !value.contains("/") else {
                throw ConfigError("\(origin): 'user_verification_pam_service' must name a file in the PAM directory, not '\(value)'")
            }
            userVerificationPAMService = value
        case "user_verification_pam_dir": userVerificationPAMDirectory = value
        default: throw ConfigError("\(origin): unknown key '\(key)'")
        }
    }

    /// The effective settings without secrets, for `--check-config`.
    public var summary: String {
        """
        source: \(source)
        relay_url: \(relayURL ?? "(not set)")
        relay_registration_key: \(relayRegistrationKey == nil ? "(not set)" : "(set)")
        device_name: \(deviceName)
        state_dir: \(stateDirectory)
        socket: \(socketPath)
        operators: \(operators.isEmpty ? "(none)" : operators.joined(separator: ", "))
        log_level: \(logLevel.rawValue)
        poll_wait_seconds: \(pollWaitSeconds)
        backoff_initial_seconds: \(backoffInitialSeconds)
        backoff_max_seconds: \(backoffMaxSeconds)
        answer_wait_seconds: \(answerWaitSeconds)
        \(providers.summary.map { "\($0.key): \($0.value)" }.joined(separator: "\n"))
        control_request_timeout_seconds: \(controlRequestTimeoutSeconds)
        control_connections_per_uid: \(controlConnectionsPerUID)
        push_limit_per_account: \(pushBudget.limit)
        push_limit_window_seconds: \(pushBudget.window)
        fraud_mute_seconds: \(fraudMuteSeconds)
        collapse_similar_pending: \(collapseSimilarPending)
        user_verification_pam_service: \(userVerificationPAMService)
        user_verification_pam_dir: \(userVerificationPAMDirectory ?? "/etc/pam.d")
        """
    }
}

public struct ConfigError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

extension AgentConfig {
    /// The control socket's permissions: a system daemon shares it with its group (operators and readers);
    /// a user's daemon keeps it to the user.
    struct SocketMode {
        var umask: mode_t
        var directoryMode: Int
    }

    var socketMode: SocketMode {
        getuid() == 0 || socketPath.hasPrefix("/run/pushagent/")
            ? SocketMode(umask: 0o117, directoryMode: 0o755)
            : SocketMode(umask: 0o177, directoryMode: 0o700)
    }
}
