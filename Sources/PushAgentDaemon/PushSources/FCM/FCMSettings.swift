import PushAgentCore

/// The FCM receiver's settings (docs/fcm.md): the Firebase apps whose pushes it receives, and where Google's services
/// are, each overridable for a corporate network or a test (pushsim fcm serve). The flat `fcm_*` keys describe the
/// app named `default`; `[fcm_apps.NAME]` tables describe more, one per provider tenant that needs its own. Off until
/// an app is set. Read at each (re)connection, so a reload applies from the next one.
struct FCMSettings: ConfigSection {
    var defaultApp = FCMSettings.unset(FCMSettings.defaultAppName)
    var namedApps: [String: FirebaseAppProfile] = [:]
    /// The app an account of a provider is enrolled on when `pushctl enroll` names none.
    var appForProvider: [Provider: String] = [:]
    var endpoints = FCMEndpoints()
    /// A PEM file of extra CAs trusted for MCS (a test CA, a corporate TLS proxy's).
    var caFile: String?
    /// How often the agent pings MCS; a connection silent for 1.5 times this plus 5 s is declared dead and replaced.
    var heartbeatSeconds: Double = 60

    static let defaultAppName = FirebaseAppProfile.defaultName
    /// What `pushctl enroll --fcm-app` takes to mean the relay, whatever the provider's default app.
    static let relayName = FirebaseAppProfile.relayName
    /// The keys of an `[fcm_apps.NAME]` table; `fcm_` and each of these are the default app's flat keys.
    static let appKeys = ["project_id", "api_key", "app_id", "sender_id", "vapid_key", "providers"]

    /// Every configured app, `default` first (when its project is set; a table is an app however incomplete, which
    /// `validate` refuses): each has its own registration, token and MCS connection.
    var apps: [FirebaseAppProfile] {
        (defaultApp.projectID.isEmpty ? [] : [defaultApp]) + namedApps.values.sorted { $0.name < $1.name }
    }

    var isEnabled: Bool { !apps.isEmpty }

    /// An app with nothing set yet: what a table starts from, and what the default app is until its keys are set.
    static func unset(_ name: String) -> FirebaseAppProfile {
        FirebaseAppProfile(name: name, projectID: "", apiKey: "", appID: "", senderID: "")
    }

    /// How an app's keys are named in `summary` and in messages: `fcm_…` for the default app, `fcm_apps.NAME.…` for
    /// the others (`appName(ofKey:)` reads it back).
    static func keyPrefix(ofApp name: String) -> String { name == defaultAppName ? "fcm_" : "fcm_apps.\(name)." }

    /// The app a key (as `summary` and the file name it) describes: `default` for the flat keys of an app, NAME for
    /// `fcm_apps.NAME.…`; nil for the receiver's other keys.
    static func appName(ofKey key: String) -> String? {
        if key.hasPrefix("fcm_apps.") { return key.dropFirst("fcm_apps.".count).split(separator: ".").first.map(String.init) }
        return key.hasPrefix("fcm_") && appKeys.contains(String(key.dropFirst(4))) ? defaultAppName : nil
    }

    func app(named name: String) -> FirebaseAppProfile? { apps.first { $0.name == name } }

    static let keys = appKeys.map { "fcm_" + $0 } + [
        "fcm_checkin_url", "fcm_register_url", "fcm_installations_url", "fcm_registrations_url", "fcm_mcs_host",
        "fcm_mcs_port", "fcm_mcs_fallback_port", "fcm_ca_file", "fcm_heartbeat_seconds",
    ]

    mutating func set(_ key: String, _ value: String, origin: String) throws(ConfigError) {
        if key.hasPrefix("fcm_"), Self.appKeys.contains(String(key.dropFirst(4))) {
            return try setApp(Self.defaultAppName, String(key.dropFirst(4)), value, origin: origin)
        }
        switch key {
        case "fcm_checkin_url": endpoints.checkin = try Self.url(value, key, origin)
        case "fcm_register_url": endpoints.gcmRegister = try Self.url(value, key, origin)
        case "fcm_installations_url": endpoints.installations = try Self.url(value, key, origin, trailingSlash: true)
        case "fcm_registrations_url": endpoints.registrations = try Self.url(value, key, origin, trailingSlash: true)
        case "fcm_mcs_host":
            guard !value.isEmpty, !value.contains("/") else { throw ConfigError("\(origin): 'fcm_mcs_host' must be a host name") }
            endpoints.mcsHost = value
        case "fcm_mcs_port": endpoints.mcsPort = Int(try ConfigValue.number(value, key: key, in: 1...65535, origin: origin))
        case "fcm_mcs_fallback_port":
            endpoints.mcsFallbackPort = Int(try ConfigValue.number(value, key: key, in: 1...65535, origin: origin))
        case "fcm_ca_file": caFile = value
        case "fcm_heartbeat_seconds": heartbeatSeconds = try ConfigValue.number(value, key: key, in: 1...3600, origin: origin)
        default: throw ConfigError("\(origin): unknown key '\(key)'")
        }
    }

    /// One key of app `name` (`default`'s from a flat key, others' from their table); `providers` is a
    /// comma-separated list of the providers whose accounts use this app unless enrolled otherwise.
    mutating func setApp(_ name: String, _ key: String, _ value: String, origin: String) throws(ConfigError) {
        let field = name == Self.defaultAppName ? "'fcm_\(key)'" : "'\(key)' of [fcm_apps.\(name)]"
        if let problem = FirebaseAppProfile.nameProblem(name) { throw ConfigError("\(origin): [fcm_apps.\(name)]: \(problem)") }
        // Checked as each value is set, so that the message names where it came from (a file, an environment variable).
        if let problem = FirebaseAppProfile.problem(ofKey: key, value: value) { throw ConfigError("\(origin): \(field) \(problem)") }
        var app = name == Self.defaultAppName ? defaultApp
            : namedApps[name] ?? Self.unset(name)
        switch key {
        case "project_id": app.projectID = value
        case "api_key": app.apiKey = value
        case "app_id": app.appID = value
        case "sender_id": app.senderID = value
        case "vapid_key": app.vapidKey = value.isEmpty ? nil : value
        case "providers":
            // The list replaces the app's earlier one (the environment's over the file's).
            appForProvider = appForProvider.filter { $0.value != name }
            for word in value.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !word.isEmpty {
                guard let provider = ProviderRegistry.provider(named: word) else {
                    throw ConfigError("\(origin): \(field) names '\(word)', which is not a provider (\(ProviderRegistry.names))")
                }
                if let other = appForProvider[provider], other != name {
                    throw ConfigError("\(origin): \(field) claims \(word), which FCM app '\(other)' already has: a provider has one default app")
                }
                appForProvider[provider] = name
            }
        default: throw ConfigError("\(origin): unknown key \(field) (an app has \(Self.appKeys.joined(separator: ", ")))")
        }
        if name == Self.defaultAppName { defaultApp = app } else { namedApps[name] = app }
    }

    /// What is wrong with the apps as a whole, checked once every key is read: each must be complete, and a
    /// provider's default must be an app that exists.
    func validate(origin: String) throws(ConfigError) {
        let defaultTouched = defaultApp != Self.unset(Self.defaultAppName)
        for app in (defaultTouched ? [defaultApp] : []) + namedApps.values.sorted(by: { $0.name < $1.name }) {
            if let problem = app.problem(keyPrefix: Self.keyPrefix(ofApp: app.name)) { throw ConfigError("\(origin): \(problem)") }
        }
        for (provider, name) in appForProvider.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where app(named: name) == nil {
            throw ConfigError("\(origin): FCM app '\(name)' is the default of \(provider.rawValue) but has no fcm_project_id")
        }
    }

    /// The app profiles' values are public identifiers (docs/fcm.md), shown as they are.
    var summary: [(key: String, value: String)] {
        // One line when there is no app, under a key of its own: FCM going on or off is what a restart applies.
        var lines: [(key: String, value: String)] = apps.isEmpty ? [("fcm_apps", "(none: FCM off until fcm_project_id or an [fcm_apps.NAME] table is set)")] : []
        for app in apps {
            let prefix = Self.keyPrefix(ofApp: app.name)
            let providers = appForProvider.filter { $0.value == app.name }.map(\.key.rawValue).sorted()
            lines += [(prefix + "project_id", app.projectID), (prefix + "api_key", app.apiKey), (prefix + "app_id", app.appID),
                      (prefix + "sender_id", app.senderID), (prefix + "vapid_key", app.vapidKey ?? "(default)"),
                      (prefix + "providers", providers.isEmpty ? "(none: only accounts enrolled with --fcm-app \(app.name))"
                                                               : providers.joined(separator: ", "))]
        }
        return lines + [
            ("fcm_checkin_url", endpoints.checkin), ("fcm_register_url", endpoints.gcmRegister),
            ("fcm_installations_url", endpoints.installations), ("fcm_registrations_url", endpoints.registrations),
            ("fcm_mcs_host", endpoints.mcsHost), ("fcm_mcs_port", "\(endpoints.mcsPort)"),
            ("fcm_mcs_fallback_port", "\(endpoints.mcsFallbackPort)"), ("fcm_ca_file", caFile ?? "(system CAs only)"),
            ("fcm_heartbeat_seconds", "\(heartbeatSeconds)"),
        ]
    }

    private static func url(_ value: String, _ key: String, _ origin: String, trailingSlash: Bool = false)
        throws(ConfigError) -> String {
        guard let scheme = value.split(separator: ":").first?.lowercased(), scheme == "https" || scheme == "http",
              value.contains("://") else {
            throw ConfigError("\(origin): '\(key)' must be an http(s) URL, not '\(value)'")
        }
        return trailingSlash && !value.hasSuffix("/") ? value + "/" : value
    }
}

extension ProviderSettings {
    var fcm: FCMSettings {
        get { self[FCMSettings.self] }
        set { self[FCMSettings.self] = newValue }
    }
}
