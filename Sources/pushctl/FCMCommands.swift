import ArgumentParser
import ControlWire
import Foundation
import PushAgentCore

struct FCM: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fcm", abstract: "Receiving pushes through Google's FCM (docs/fcm.md).", subcommands: [Check.self, ImportGoogleServices.self])

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register with FCM (or reuse the registration) and report it, with the token and the connection.",
            discussion: "Send a test message to the token it prints (the Firebase console's Cloud Messaging, \"Send test message\") to see a push arrive. Exits 1 when FCM is off or Google refused.")
        @OptionGroup var global: GlobalOptions
        @Option(help: "The Firebase app (an [fcm_apps.NAME] table in pushagentd.toml); the default app when omitted.")
        var app: String?

        func run() async throws {
            try await global.show({ try await $0.fcmCheck(app: app) }) { check in
                Output.say("""
                    FCM app \(check.app): project \(check.projectID), sender \(check.senderID)
                    registered \(Output.timestamp(check.registeredAt)) as device \(check.device)
                    token: \(check.token)
                    installation token valid until \(Output.timestamp(check.installationTokenExpiresAt))
                    connection: \(check.connection.state)\(check.connection.detail.map { " (\($0))" } ?? "")
                    """)
                if check.connection.state != "connected" { throw ExitCode.failure }
            }
        }
    }

    /// An Android app's google-services.json as pushagentd.toml's settings: what a provider whose own app is mobile
    /// only has instead of a web config. Read here, not by the daemon: it needs nothing of it.
    struct ImportGoogleServices: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import-google-services",
            abstract: "Print the pushagentd.toml settings of a Firebase Android app, from its google-services.json.",
            discussion: "For a provider whose own app is Android only (no web sign-in page to take a firebaseConfig from): the file's project_id, project_number, and the chosen client's mobilesdk_app_id and api_key become the app's project_id, sender_id, app_id and api_key. Add what it prints to pushagentd.toml and restart pushagentd. Exits 1, saying why, when the file lacks a value or has several clients and --package names none of them.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The google-services.json (a Firebase Android app's config).")
        var file: String
        @Option(help: "The app's name in pushagentd.toml: `default` prints the flat fcm_* keys, another name an [fcm_apps.NAME] table.")
        var name = FirebaseAppProfile.defaultName
        @Option(name: .customLong("package"), help: "The provider's Android package, when the file has several clients (apps).")
        var packageName: String?

        func run() throws {
            if let problem = FirebaseAppProfile.nameProblem(name) {
                Output.error("--name \(name): \(problem)")
                throw ExitCode(ExitStatus.usage)
            }
            let data = try contents()
            let app: FirebaseAppProfile
            do {
                app = try GoogleServicesFile(json: data).profile(name: name, packageName: packageName)
            } catch {
                Output.error("\(file): \(error)")
                throw ExitCode.failure
            }
            let values = [("project_id", app.projectID), ("api_key", app.apiKey), ("app_id", app.appID), ("sender_id", app.senderID)]
            if global.json { return try Output.json(Dictionary(uniqueKeysWithValues: values + [("name", name)])) }
            // The values passed FirebaseAppProfile's checks, which leave nothing a TOML string would need escaped.
            let isDefault = name == FirebaseAppProfile.defaultName
            var lines = ["# \(name): the Firebase app \(app.appID) of project \(app.projectID) (public identifiers, not secrets)"]
            lines += isDefault ? ["# the default app's keys: put them above the first [table] of pushagentd.toml"] : ["[fcm_apps.\(name)]"]
            lines += values.map { "\(isDefault ? "fcm_" : "")\($0.0) = \"\($0.1)\"" }
            let known = ProviderRegistry.all.map { "\"\($0.provider)\"" }.joined(separator: ", ")
            lines.append("# \(isDefault ? "fcm_" : "")providers = [\(known)]  # providers whose accounts use this app unless enrolled otherwise")
            Output.say(lines.joined(separator: "\n"))
        }

        private func contents() throws -> Data {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), isDirectory.boolValue {
                Output.error("\(file) is a directory: give the google-services.json file itself")
                throw ExitCode.failure
            }
            guard let handle = FileHandle(forReadingAtPath: file) else {
                Output.error("cannot read \(file): \(String(cString: strerror(errno)))")
                throw ExitCode.failure
            }
            defer { try? handle.close() }
            guard let data = try? handle.readToEnd() else {
                Output.error("cannot read \(file)")
                throw ExitCode.failure
            }
            return data ?? Data()
        }
    }
}
