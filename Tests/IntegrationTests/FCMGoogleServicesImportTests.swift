import ClusterHarness
import Foundation
import Testing

/// Issue 43: a provider whose own app is Android only has no web config to take an FCM app's values from; its
/// google-services.json has them, and `pushctl fcm import-google-services` turns it into pushagentd.toml's settings.
@Suite(.timeLimit(.minutes(2)))
struct FCMGoogleServicesImportTests {
    /// A Firebase project with two Android apps, as the Firebase console writes its google-services.json (the shape
    /// of the Google Services Gradle plugin's input; values made up).
    static let googleServices = """
        {
          "project_info": {
            "project_number": "123456789012",
            "firebase_url": "https://example-mfa-default-rtdb.firebaseio.com",
            "project_id": "example-mfa",
            "storage_bucket": "example-mfa.appspot.com"
          },
          "client": [
            {
              "client_info": {
                "mobilesdk_app_id": "1:123456789012:android:0a1b2c3d4e5f6789",
                "android_client_info": { "package_name": "com.example.authenticator" }
              },
              "oauth_client": [
                { "client_id": "123456789012-abcdefghijklmnopqrstuvwxyz012345.apps.googleusercontent.com", "client_type": 3 }
              ],
              "api_key": [ { "current_key": "AIzaSyAuthenticator0123456789abcdefghij" } ],
              "services": {
                "appinvite_service": {
                  "other_platform_oauth_client": [
                    { "client_id": "123456789012-abcdefghijklmnopqrstuvwxyz012345.apps.googleusercontent.com", "client_type": 3 }
                  ]
                }
              }
            },
            {
              "client_info": {
                "mobilesdk_app_id": "1:123456789012:android:9f8e7d6c5b4a3210",
                "android_client_info": { "package_name": "com.example.wallet" }
              },
              "oauth_client": [],
              "api_key": [ { "current_key": "AIzaSyWallet000000000000000000000000000" } ],
              "services": { "appinvite_service": { "other_platform_oauth_client": [] } }
            }
          ],
          "configuration_version": "1"
        }
        """

    static func withFile(_ contents: String, _ body: (String) async throws -> Void) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("google-services-\(UUID()).json").path
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await body(path)
    }

    static func importFile(_ path: String, _ options: [String]) async throws -> CommandResult {
        try await CommandResult.run(Binaries.path("pushctl"), ["fcm", "import-google-services", path] + options)
    }

    /// What it prints is pushagentd.toml as pushagentd reads it, for a table and for the flat keys alike.
    @Test(arguments: [(["--name", "mobile"], "fcm_apps.mobile."), ([], "fcm_")])
    func theChosenClientsValuesAreSettingsPushagentdAccepts(options: [String], prefix: String) async throws {
        try await Self.withFile(Self.googleServices) { path in
            let imported = try await Self.importFile(path, options + ["--package", "com.example.authenticator"])
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(!imported.stdout.contains("AIzaSyWallet"), "the other client's key: \(imported.stdout)")
            let config = path + ".toml"
            try ("relay_url = \"http://127.0.0.1:1\"\n" + imported.stdout).write(toFile: config, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: config) }
            let check = try await CommandResult.run(Binaries.path("pushagentd"), ["--config", config, "--check-config"])
            #expect(check.status == 0, "\(check.stderr)\n\(imported.stdout)")
            for (key, value) in [("project_id", "example-mfa"), ("api_key", "AIzaSyAuthenticator0123456789abcdefghij"),
                                 ("app_id", "1:123456789012:android:0a1b2c3d4e5f6789"), ("sender_id", "123456789012")] {
                #expect(check.stdout.split(separator: "\n").contains { $0.contains(prefix + key) && $0.hasSuffix(value) },
                        "\(prefix)\(key): \(check.stdout)")
            }
        }
    }

    @Test(arguments: [
        (googleServices, [String](), "2 clients (com.example.authenticator, com.example.wallet): say which is the provider's app with --package"),
        (googleServices, ["--package", "com.example.shop"],
         "no client for package com.example.shop; its packages: com.example.authenticator, com.example.wallet"),
        (googleServices.replacingOccurrences(of: #""current_key": "AIzaSyAuthenticator0123456789abcdefghij""#, with: ""),
         ["--package", "com.example.authenticator"], "lacks api_key.current_key, which registering needs"),
        (googleServices.replacingOccurrences(of: #""project_number": "123456789012","#, with: ""),
         ["--package", "com.example.wallet"], "lacks project_info.project_number"),
        (googleServices.replacingOccurrences(of: "1:123456789012:android:9f8e7d6c5b4a3210", with: "1:210987654321:android:9f8e7d6c5b4a3210"),
         ["--package", "com.example.wallet"], "sender_id '123456789012' is not the project number in app_id"),
        // A service account's key file, the JSON most often mistaken for it: refused without echoing its secret.
        (#"{"type": "service_account", "project_id": "example-mfa", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIsecret\n"}"#,
         [String](), "no project_info: not a google-services.json"),
        ("<plist><dict><key>GOOGLE_APP_ID</key></dict></plist>", [String](), "not a JSON object"),
    ])
    func aFileWithoutWhatIsNeededIsRefusedSayingWhy(contents: String, options: [String], message: String) async throws {
        try await Self.withFile(contents) { path in
            let imported = try await Self.importFile(path, options)
            #expect(imported.status == 1 && imported.stdout.isEmpty, "\(imported.stdout)")
            #expect(imported.stderr.contains(message), "\(imported.stderr)")
            #expect(!imported.stderr.contains("MIIsecret"))
        }
    }

    @Test func aNameNoAppMayHaveIsAUsageError() async throws {
        try await Self.withFile(Self.googleServices) { path in
            let imported = try await Self.importFile(path, ["--name", "none", "--package", "com.example.wallet"])
            #expect(imported.status == 2 && imported.stdout.isEmpty, "\(imported.stdout)")
            #expect(imported.stderr.contains("--name none: an app's name is 1 to 32 of a-z, 0-9, '_' and '-', and not 'none'"),
                    "\(imported.stderr)")
        }
    }

    @Test func aDirectoryIsNamedAsOne() async throws {
        let directory = FileManager.default.temporaryDirectory.path
        let imported = try await Self.importFile(directory, [])
        #expect(imported.status == 1 && imported.stderr.contains("\(directory) is a directory"), "\(imported.stderr)")
    }
}
