/// privacyIDEA's settings (docs/configuration.md).
struct PrivacyIDEASettings: ConfigSection {
    /// How often poll-only privacyIDEA tokens ask their server for open challenges.
    var pollSeconds: Double = 10

    static let keys = ["privacyidea_poll_seconds"]

    mutating func set(_ key: String, _ value: String, origin: String) throws(ConfigError) {
        switch key {
        case "privacyidea_poll_seconds": pollSeconds = try ConfigValue.number(value, key: key, in: 1...3600, origin: origin)
        default: throw ConfigError("\(origin): unknown key '\(key)'")
        }
    }

    var summary: [(key: String, value: String)] { [("privacyidea_poll_seconds", "\(pollSeconds)")] }
}

extension ProviderSettings {
    var privacyIDEA: PrivacyIDEASettings {
        get { self[PrivacyIDEASettings.self] }
        set { self[PrivacyIDEASettings.self] = newValue }
    }
}
