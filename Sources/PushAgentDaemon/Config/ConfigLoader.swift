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

    public static func load(_ overrides: Overrides, environment: [String: String] = ProcessInfo.processInfo.environment,
                            isRoot: Bool = getuid() == 0) throws(ConfigError) -> AgentConfig {
        let systemMode = isRoot || overrides.configFile != nil
        var config = AgentConfig.defaults(systemMode: systemMode, environment: environment)
        let file = overrides.configFile ?? (systemMode ? systemConfigFile : userConfigFile(environment))
        if let file {
            if let text = try? String(contentsOfFile: file, encoding: .utf8) {
                try config.apply(toml: text, file: file)
            } else if overrides.configFile != nil {
                throw ConfigError("cannot read config file \(file): \(String(cString: strerror(errno)))")
            }
        }
        try config.apply(environment: environment)
        let flags: [(String, String?)] = [
            ("state_dir", overrides.stateDirectory), ("socket", overrides.socketPath),
            ("relay_url", overrides.relayURL), ("relay_registration_key", overrides.relayRegistrationKey),
        ]
        for case let (key, value?) in flags { try config.set(key, value, origin: "--" + key.replacingOccurrences(of: "_", with: "-")) }
        if !overrides.operators.isEmpty { config.operators = overrides.operators }
        if overrides.stateDirectory != nil, overrides.socketPath == nil, environment["PUSHAGENT_SOCKET"] == nil,
           !systemMode, environment["XDG_RUNTIME_DIR"] == nil {
            config.socketPath = config.stateDirectory + "/pushagentd.sock"
        }
        guard config.relayURL != nil else {
            throw ConfigError("relay_url is not set: give --relay URL, PUSHAGENT_RELAY_URL, or relay_url in \(file ?? "the config file")")
        }
        return config
    }

    static func userConfigFile(_ environment: [String: String]) -> String? {
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? environment["HOME"].map { $0 + "/.config" }
        return base.map { $0 + "/pushagent/pushagentd.toml" }
    }
}
