/// Each provider's and push source's section of the settings; a new dialect with settings adds its section here.
struct ProviderSettings: Sendable, Equatable {
    var plusAuth = PlusAuthSettings()
    var privacyIDEA = PrivacyIDEASettings()
    var fcm = FCMSettings()

    static let keys = PlusAuthSettings.keys + PrivacyIDEASettings.keys + FCMSettings.keys

    /// Sets the key in the section that has it; false when none does.
    mutating func set(_ key: String, _ value: String, origin: String) throws(ConfigError) -> Bool {
        if PlusAuthSettings.keys.contains(key) {
            try plusAuth.set(key, value, origin: origin)
        } else if PrivacyIDEASettings.keys.contains(key) {
            try privacyIDEA.set(key, value, origin: origin)
        } else if FCMSettings.keys.contains(key) {
            try fcm.set(key, value, origin: origin)
        } else {
            return false
        }
        return true
    }

    var summary: [(key: String, value: String)] { privacyIDEA.summary + plusAuth.summary + fcm.summary }
}
