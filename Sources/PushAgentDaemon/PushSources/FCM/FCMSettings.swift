import PushAgentCore

/// The FCM receiver's settings (docs/fcm.md): the Firebase app whose pushes it receives, and where Google's services
/// are, each overridable for a corporate network or a test (pushsim fcm serve). Off until `fcm_project_id` is set.
/// Read at each (re)connection, so a reload applies from the next one.
struct FCMSettings: ConfigSection {
    var app = FirebaseAppProfile(name: "default", projectID: "", apiKey: "", appID: "", senderID: "")
    var endpoints = FCMEndpoints()
    /// A PEM file of extra CAs trusted for MCS (a test CA, a corporate TLS proxy's).
    var caFile: String?
    /// How often the agent pings MCS; a connection silent for this plus 20 s is declared dead and replaced.
    var heartbeatSeconds: Double = 60

    var isEnabled: Bool { !app.projectID.isEmpty }

    static let keys = [
        "fcm_project_id", "fcm_api_key", "fcm_app_id", "fcm_sender_id", "fcm_vapid_key", "fcm_checkin_url",
        "fcm_register_url", "fcm_installations_url", "fcm_registrations_url", "fcm_mcs_host", "fcm_mcs_port",
        "fcm_mcs_fallback_port", "fcm_ca_file", "fcm_heartbeat_seconds",
    ]

    mutating func set(_ key: String, _ value: String, origin: String) throws(ConfigError) {
        switch key {
        case "fcm_project_id": app.projectID = value
        case "fcm_api_key": app.apiKey = value
        case "fcm_app_id": app.appID = value
        case "fcm_sender_id": app.senderID = value
        case "fcm_vapid_key": app.vapidKey = value.isEmpty ? nil : value
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

    /// The app profile's values are public identifiers (docs/fcm.md), shown as they are.
    var summary: [(key: String, value: String)] {
        [("fcm_project_id", app.projectID.isEmpty ? "(not set: FCM off)" : app.projectID), ("fcm_api_key", app.apiKey),
         ("fcm_app_id", app.appID), ("fcm_sender_id", app.senderID), ("fcm_vapid_key", app.vapidKey ?? "(default)"),
         ("fcm_checkin_url", endpoints.checkin), ("fcm_register_url", endpoints.gcmRegister),
         ("fcm_installations_url", endpoints.installations), ("fcm_registrations_url", endpoints.registrations),
         ("fcm_mcs_host", endpoints.mcsHost), ("fcm_mcs_port", "\(endpoints.mcsPort)"),
         ("fcm_mcs_fallback_port", "\(endpoints.mcsFallbackPort)"), ("fcm_ca_file", caFile ?? "(system CAs only)"),
         ("fcm_heartbeat_seconds", "\(heartbeatSeconds)")]
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
