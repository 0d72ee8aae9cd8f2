import ArgumentParser
import ControlWire
import Foundation
import PushAgentCore

struct Enroll: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Enroll an account from its QR-code URI (pushauth://, mfauth://, …) or a picture of the QR code.",
        discussion: """
        The URI holds the account's shared secret. Give it on stdin (`pushctl enroll - < uri.txt`, or paste it at \
        the prompt, which plain `pushctl enroll` at a terminal shows; it is not echoed) or in a file (--uri-file): a URI given as an argument can be read by every local user in the \
        process list (ps, /proc/PID/cmdline) while pushctl runs, so that form prints a warning. Whitespace around \
        the URI is ignored; an empty input or more than one URI is refused.
        """)
    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("- to read the URI from stdin (preferred), or the URI the QR code holds, which every local user can see in the process list.",
                                 valueName: "uri"))
    var uri: String?
    @Option(help: ArgumentHelp("Read the URI from this file instead.", valueName: "path")) var uriFile: String?
    @Option(help: ArgumentHelp("A PNG or JPEG picture of the QR code, instead of the URI.", valueName: "image"))
    var qr: String?
    @Option(help: "A name for the account (default: from the URI).") var name: String?
    @Option(name: .customLong("fcm-app"), help: ArgumentHelp(
        "Give the provider this machine's FCM token for the Firebase app NAME ('default' for pushagentd.toml's fcm_* keys, or an [fcm_apps.NAME] table), so it can push through Google; 'none' for the relay's token. Without it, the provider's default app (an app's 'providers'), else the relay.",
        valueName: "name"))
    var fcmApp: String?
    @Flag(help: "Parse the URI and show what would be enrolled; contacts nothing (works without a daemon).") var dryRun = false

    func validate() throws {
        _ = try EnrollmentInput(argument: uri, uriFile: uriFile, qrImage: qr)
    }

    func run() async throws {
        let input = try EnrollmentInput(argument: uri, uriFile: uriFile, qrImage: qr)
        if input.isVisibleToOtherUsers {
            Output.warning("the URI holds the account's secret, and as an argument every local user can read it "
                           + "(ps, /proc/PID/cmdline) while pushctl runs; prefer `pushctl enroll -` with the URI on stdin, "
                           + "or --uri-file PATH")
        }
        let uri: String
        do {
            uri = try input.read()
        } catch let error as EnrollmentInputError {
            Output.error(error.description)
            throw ExitCode.failure
        }
        if dryRun { return try showWithoutEnrolling(uri) }
        try await global.show({ try await $0.enroll(uri: uri, name: name, fcmApp: fcmApp) }) { account in
            Output.say("enrolled \(account.id): \(account.issuer) \(account.name) (\(account.provider.rawValue))")
            if let nextStep = ProviderRegistry[account.provider]?.nextStep {
                Output.say("next: " + nextStep(account.id))
            }
        }
    }

    private func showWithoutEnrolling(_ uri: String) throws {
        let summary: [String: String]
        do {
            summary = try EnrollmentURI.parse(uri).summary
        } catch {
            Output.error("\(error)")
            throw ExitCode.failure
        }
        if global.json { return try Output.json(summary) }
        Output.say(summary.map { "\($0.key): \($0.value)" }.sorted().joined(separator: "\n"))
    }
}
