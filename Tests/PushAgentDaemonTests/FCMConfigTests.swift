import Foundation
@testable import PushAgentDaemon
import PushAgentCore
import Testing

/// pushagentd.toml's Firebase apps: the flat `fcm_*` keys' `default`, `[fcm_apps.NAME]` tables, and which app a
/// provider's accounts use.
struct FCMConfigTests {
    func load(toml: String, environment: [String: String] = [:]) throws -> FCMSettings {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fcm-config-\(UUID()).toml").path
        try toml.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try ConfigLoader.load(.init(configFile: path, stateDirectory: "/tmp/x", socketPath: nil, relayURL: "http://relay",
                                           relayRegistrationKey: nil, operators: []),
                                     environment: environment, isRoot: false).providers.fcm
    }

    static let defaultApp = """
        fcm_project_id = "example-mfa"
        fcm_api_key = "AIzaSyDefault"
        fcm_app_id = "1:123456789012:web:0a1b"
        fcm_sender_id = "123456789012"
        """
    static let tenantApp = """
        [fcm_apps.tenant]
        project_id = "tenant-mfa"
        api_key = "AIzaSyTenant"
        app_id = "1:222222222222:web:0b1c"
        sender_id = "222222222222"
        """

    @Test func offUntilAnAppIsSet() throws {
        let settings = try load(toml: "fcm_mcs_host = \"mtalk.example\"\n")
        #expect(!settings.isEnabled && settings.apps.isEmpty && settings.endpoints.mcsHost == "mtalk.example")
    }

    @Test func theFlatKeysAreTheDefaultAppAndTablesAddMore() throws {
        let settings = try load(toml: Self.defaultApp + "\nfcm_providers = [\"forgerock\"]\n" + Self.tenantApp
                                + "\nproviders = [\"plusauth\", \"hyphen\"]\n")
        #expect(settings.apps.map(\.name) == ["default", "tenant"])
        #expect(settings.app(named: "tenant")?.senderID == "222222222222")
        #expect(settings.appForProvider == [.forgerock: "default", .plusauth: "tenant", .hyphen: "tenant"])
        let summary = settings.summary.map { "\($0.key): \($0.value)" }
        #expect(summary.contains("fcm_apps.tenant.providers: hyphen, plusauth"))
        #expect(summary.contains("fcm_providers: forgerock"))
    }

    @Test func theDefaultAppsProvidersComeFromTheEnvironmentToo() throws {
        let settings = try load(toml: Self.defaultApp, environment: ["PUSHAGENT_FCM_PROVIDERS": "plusauth, privacyidea"])
        #expect(settings.appForProvider == [.plusauth: "default", .privacyidea: "default"])
        let replaced = try load(toml: Self.defaultApp + "\nfcm_providers = [\"hyphen\"]\n",
                                environment: ["PUSHAGENT_FCM_PROVIDERS": "plusauth"])
        #expect(replaced.appForProvider == [.plusauth: "default"], "the environment's list replaces the file's")
    }

    @Test(arguments: [
        (tenantApp.replacingOccurrences(of: "sender_id = \"222222222222\"", with: ""),
         "FCM app 'tenant' lacks fcm_apps.tenant.sender_id"),
        ("fcm_project_id = \"p\"\n", "FCM app 'default' lacks fcm_api_key, fcm_app_id, fcm_sender_id"),
        (tenantApp + "\nproviders = [\"okta\"]\n", "'providers' of [fcm_apps.tenant] names 'okta', which is not a provider"),
        (tenantApp + "\ncolour = \"red\"\n", "unknown key 'colour' of [fcm_apps.tenant]"),
        (tenantApp.replacingOccurrences(of: "fcm_apps.tenant", with: "fcm_apps.none"), "not 'none' (which means the relay)"),
        (tenantApp.replacingOccurrences(of: "fcm_apps.tenant", with: "fcm_apps.\"Bad Name\""), "an app's name is 1 to 32 of"),
        ("fcm_apps = \"x\"\n", "'fcm_apps' must hold tables"),
        (defaultApp + "\nfcm_providers = [\"plusauth\"]\n" + tenantApp + "\nproviders = [\"plusauth\"]\n",
         "claims plusauth, which FCM app '"),
        ("fcm_providers = [\"plusauth\"]\n", "FCM app 'default' is the default of plusauth but has no fcm_project_id"),
        ("[fcm_apps.empty]\nproviders = [\"plusauth\"]\n", "FCM app 'empty' lacks fcm_apps.empty.project_id"),
        (defaultApp + "\nfcm_vapid_key = \"xyz\"\n", "'fcm_vapid_key' 'xyz' decodes to 2 bytes, not 65"),
        (defaultApp + "\nfcm_vapid_key = \"\(String(repeating: "A", count: 86))==\"\n", "is not base64url (it has base64's '+', '/' or '='"),
        (defaultApp + "\nfcm_vapid_key = \"AgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\"\n", "decodes to 33 bytes, not 65"),
        (defaultApp + "\nfcm_vapid_key = \"AwABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4fICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8\"\n",
         "does not begin with 0x04 (an uncompressed point)"),
        (tenantApp + "\nvapid_key = \"B\(String(repeating: "A", count: 86))\"\n",
         "'vapid_key' of [fcm_apps.tenant] 'BAAAA"),
        (tenantApp + "\nvapid_key = \"B\(String(repeating: "A", count: 86))\"\n",
         "is not a point on P-256: a VAPID key is an uncompressed P-256 public key in base64url, 87 characters"),
        (defaultApp.replacingOccurrences(of: "AIzaSyDefault", with: "AAAAserverKey:APA91bSecret"),
         "'fcm_api_key' is not a Google API key: one begins with 'AIza'"),
        (defaultApp.replacingOccurrences(of: "1:123456789012:web:0a1b", with: "example-mfa"),
         "'fcm_app_id' 'example-mfa' is not a Firebase app id: one looks like 1:123456789012:web:0a1b2c3d or 1:123456789012:android:"),
        (defaultApp.replacingOccurrences(of: "1:123456789012:web:0a1b", with: "1:123456789012:windows:0a1b"), "is not a Firebase app id"),
        (defaultApp.replacingOccurrences(of: "\"example-mfa\"", with: "\"Example MFA\""),
         "'fcm_project_id' 'Example MFA' is not a Firebase project id"),
        (tenantApp.replacingOccurrences(of: "sender_id = \"222222222222\"", with: "sender_id = \"333333333333\""),
         "FCM app 'tenant': fcm_apps.tenant.sender_id '333333333333' is not the project number in fcm_apps.tenant.app_id "
            + "'1:222222222222:web:0b1c' (222222222222)"),
    ])
    func mistakesSayWhatAndWhere(toml: String, message: String) {
        #expect { try load(toml: toml) } throws: { error in "\(error)".contains(message) }
    }

    /// A value from the environment is named as such: the file may be right.
    @Test func aMalformedValueFromTheEnvironmentNamesItsVariable() {
        #expect { try load(toml: Self.defaultApp, environment: ["PUSHAGENT_FCM_VAPID_KEY": "xyz"]) } throws: { error in
            "\(error)".hasPrefix("environment variable PUSHAGENT_FCM_VAPID_KEY: 'fcm_vapid_key' 'xyz' decodes to 2 bytes, not 65")
        }
    }

    /// A mobile app's values (a mobile-only provider's google-services.json, GoogleService-Info.plist) and a VAPID
    /// key that is a P-256 point.
    @Test func mobileAppsAndARealVAPIDKeyAreAccepted() throws {
        let vapid = "BDOU99-h67HcA6JeFXHbSNMu7e2yNNu3RzoMj8TM4W88jITfq7ZmPvIM1Iv-4_l2LxQcYwhqby2xGpWwzjfAnG4"
        let settings = try load(toml: """
            fcm_project_id = "example-mfa"
            fcm_api_key = "AIzaSyDefault"
            fcm_app_id = "1:123456789012:android:0a1b2c3d4e5f6789"
            fcm_sender_id = "123456789012"
            fcm_vapid_key = "\(vapid)"
            """ + "\n" + Self.tenantApp.replacingOccurrences(of: "web:0b1c", with: "ios:0b1c2d3e4f5a6b7c"))
        #expect(settings.app(named: "default")?.appID == "1:123456789012:android:0a1b2c3d4e5f6789")
        #expect(settings.app(named: "tenant")?.appID == "1:222222222222:ios:0b1c2d3e4f5a6b7c")
        #expect(settings.app(named: "default")?.vapidKey == vapid)
    }
}
