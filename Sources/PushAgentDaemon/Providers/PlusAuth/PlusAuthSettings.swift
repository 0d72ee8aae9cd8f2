import PushAgentCore

/// PlusAuth's settings (docs/configuration.md).
struct PlusAuthSettings: ConfigSection {
    /// The machine identity accounts bound to this machine are checked against (PlusAuth `bind_sim`): this file's
    /// contents plus `bindingIdentity`.
    var machineIDFile = "/etc/machine-id"
    var bindingIdentity: String?
    /// The key type new PlusAuth accounts are enrolled with (PlusAuth does not document one).
    var keyAlgorithm = PlusAuthAlgorithm.es256
    /// Where a PlusAuth answer goes when the push's `resolve_url` answers 404/405 or is missing; "" for nowhere.
    var resolveFallbackPath = "/push-authenticator/resolve-challenge"

    /// nil: no fallback.
    var fallbackPath: String? { resolveFallbackPath.isEmpty ? nil : resolveFallbackPath }

    static let keys = ["machine_id_file", "binding_identity", "plusauth_key_algorithm", "plusauth_resolve_fallback_path"]

    mutating func set(_ key: String, _ value: String, origin: String) throws(ConfigError) {
        switch key {
        case "machine_id_file": machineIDFile = value
        case "binding_identity": bindingIdentity = value.isEmpty ? nil : value
        case "plusauth_key_algorithm":
            guard let algorithm = PlusAuthAlgorithm(rawValue: value.uppercased()) else {
                throw ConfigError("\(origin): 'plusauth_key_algorithm' must be ES256 or RS256, not '\(value)'")
            }
            keyAlgorithm = algorithm
        case "plusauth_resolve_fallback_path":
            guard value.isEmpty || value.hasPrefix("/"), !value.contains("?"), !value.contains("#") else {
                throw ConfigError("\(origin): 'plusauth_resolve_fallback_path' must be a path starting with '/' (or empty for none), not '\(value)'")
            }
            resolveFallbackPath = value
        default: throw ConfigError("\(origin): unknown key '\(key)'")
        }
    }

    var summary: [(key: String, value: String)] {
        [("machine_id_file", machineIDFile), ("binding_identity", bindingIdentity == nil ? "(not set)" : "(set)"),
         ("plusauth_key_algorithm", keyAlgorithm.rawValue),
         ("plusauth_resolve_fallback_path", resolveFallbackPath.isEmpty ? "(none)" : resolveFallbackPath)]
    }
}

extension ProviderSettings {
    var plusAuth: PlusAuthSettings {
        get { self[PlusAuthSettings.self] }
        set { self[PlusAuthSettings.self] = newValue }
    }
}
