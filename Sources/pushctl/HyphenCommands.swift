import ArgumentParser
import ControlClient
import ControlWire
import Foundation
import PushAgentCore

struct Hyphen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hyphen", abstract: "Hyphen accounts: sign this device in.", subcommands: [SignIn.self])

    struct SignIn: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "signin",
            abstract: "Sign this device in to an enrolled Hyphen account.",
            discussion: """
            With a device key Hyphen already knows, this signs in at once. Otherwise Hyphen asks another device of the \
            account (your phone) to approve; this waits for it (see `pushctl requests`). An account with no device yet \
            is signed up with this one. The credential is the sign-in token your Hyphen app issued; `--credential -` \
            reads it from stdin, which keeps it out of the process list.
            """)
        @OptionGroup var global: GlobalOptions
        @Option(help: "Account id or unique prefix.") var account: String
        @Option(help: ArgumentHelp("The sign-in token, or - to read it from stdin.", valueName: "token")) var credential: String
        @Flag(help: "Return once the request is made instead of waiting for the other device.") var noWait = false

        func run() async throws {
            let token = credential == "-" ? (readLine() ?? "").trimmingCharacters(in: .whitespaces) : credential
            try await global.run(ids: .account) { client in
                let request = try await client.hyphenSignIn(account: account, credential: token)
                if noWait || request.state.isFinal {
                    if global.json { return try Output.json(request) }
                    return Output.say("\(request.id) \(request.state.rawValue): \(request.message)")
                }
                try await RequestWaiting.untilFinal(request.id, client: client, json: global.json)
            }
        }
    }
}
