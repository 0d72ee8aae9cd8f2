import ArgumentParser
import ControlWire

struct FCM: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fcm", abstract: "Receiving pushes through Google's FCM (docs/fcm.md).", subcommands: [Check.self])

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register with FCM (or reuse the registration) and report it, with the token and the connection.",
            discussion: "Send a test message to the token it prints (the Firebase console's Cloud Messaging, \"Send test message\") to see a push arrive. Exits 1 when FCM is off or Google refused.")
        @OptionGroup var global: GlobalOptions
        @Option(help: "The Firebase app (an [fcm_apps.NAME] table in pushagentd.toml); the default app when omitted.")
        var app: String?

        func run() async throws {
            try await global.run { client in
                let check = try await client.fcmCheck(app: app)
                if global.json { return try Output.json(check) }
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
}
