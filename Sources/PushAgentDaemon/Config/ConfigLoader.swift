import ControlWire
import Foundation

/// Builds the effective configuration: defaults for the mode, then the file, the environment, and the flags.
public enum ConfigLoader {
    public struct Overrides: Sendable {
        public var configFile: String?
        public var stateDirectory: String?
        public var socketPath: String?
        public var relayURL: String?
        public var relayRegistrationKey: String?
        public var operators: [String]

        public init(configFile: String?, stateDirectory: String?, socketPath: String?, relayURL: String?,
                    relayRegistrationKey: String?, operators: [String]) {
            self.configFile = configFile
            self.stateDirectory = stateDirectory
            self.socketPath = socketPath
            self.relayURL = relayURL
            self.relayRegistrationKey = relayRegistrationKey
            self.operators = operators
        }
    }

    public static let systemConfigFile = "/etc/pushagent/pushagentd.toml"

    /// Relative paths from flags and the environment are taken from `workingDirectory`: give the directory the
    /// program started in, so a reload after a change of directory finds the same places (ConfigPaths).
    public static func load(_ overrides: Overrides, environment: [String: String] = ProcessInfo.processInfo.environment,
                            isRoot: Bool = getuid() == 0,
                            workingDirectory: String = FileManager.default.currentDirectoryPath) throws(ConfigError) -> AgentConfig {
        let systemMode = isRoot || overrides.configFile != nil
        var config = AgentConfig.defaults(systemMode: systemMode, environment: environment)
        let file = overrides.configFile.map { ConfigPaths.absolute($0, relativeTo: workingDirectory) }
            ?? (systemMode ? systemConfigFile : userConfigFile(environment))
        if let file, let text = try readConfigFile(file, required: overrides.configFile != nil) {
            try config.apply(toml: text, file: file)
        }
        try config.apply(environment: environment, workingDirectory: workingDirectory)
        let flags: [(String, String?)] = [
            ("state_dir", overrides.stateDirectory), ("socket", overrides.socketPath),
            ("relay_url", overrides.relayURL), ("relay_registration_key", overrides.relayRegistrationKey),
        ]
        for case let (key, value?) in flags {
            try config.set(key, value, origin: "--" + key.replacingOccurrences(of: "_", with: "-"), relativeTo: workingDirectory)
        }
        if !overrides.operators.isEmpty { config.operators = overrides.operators }
        if overrides.stateDirectory != nil, overrides.socketPath == nil, environment["PUSHAGENT_SOCKET"] == nil,
           !systemMode, ControlSocket.runtimePath(environment: environment) == nil {
            config.socketPath = config.stateDirectory + "/pushagentd.sock"
        }
        guard config.socketPath.utf8.count <= ConfigPaths.maximumSocketPathBytes else {
            throw ConfigError("socket path \(config.socketPath) is \(config.socketPath.utf8.count) bytes long; a Unix socket "
                              + "path holds at most \(ConfigPaths.maximumSocketPathBytes): give a shorter --socket PATH "
                              + "(or `socket`, PUSHAGENT_SOCKET)")
        }
        try config.providers.fcm.validate(origin: file ?? "the settings")
        guard config.relayURL != nil else {
            throw ConfigError("relay_url is not set: give --relay URL, PUSHAGENT_RELAY_URL, or relay_url in \(file ?? "the config file")")
        }
        return config
    }

    /// The file's text; nil for a default file that is not there. Read as a stream, so that `/dev/null` (an empty
    /// config, which `String(contentsOfFile:)` refused, blaming errno 0: "Success") and pipes work too.
    static func readConfigFile(_ file: String, required: Bool) throws(ConfigError) -> String? {
        // Opening a directory succeeds; reading it then failed with Foundation's "NSCocoaErrorDomain error 256".
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), isDirectory.boolValue {
            throw ConfigError("config file \(file) is a directory: give the path of a TOML file, "
                              + "e.g. --config \((file as NSString).appendingPathComponent("pushagentd.toml"))")
        }
        guard let handle = FileHandle(forReadingAtPath: file) else {
            let reason = String(cString: strerror(errno))
            if !required, errno == ENOENT { return nil }
            throw ConfigError("cannot read config file \(file): \(reason)")
        }
        defer { try? handle.close() }
        let data: Data
        do { data = try handle.readToEnd() ?? Data() }
        catch { throw ConfigError("cannot read config file \(file): \(error.localizedDescription)") }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigError("config file \(file) is not UTF-8 text")
        }
        return text
    }

    static func userConfigFile(_ environment: [String: String]) -> String? {
        let base = XDGBaseDirectory.path("XDG_CONFIG_HOME", in: environment) ?? environment["HOME"].map { $0 + "/.config" }
        return base.map { $0 + "/pushagent/pushagentd.toml" }
    }
}
