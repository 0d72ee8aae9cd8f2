import ArgumentParser
import Foundation
import PushSim

struct PushSimCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushsim",
        abstract: "An identity-provider emulator: issues enrollment URIs, sends signed pushes through the relay, "
            + "and verifies the agent's answers.",
        subcommands: [ServeAll.self, ForgeRockCommand.self, PlusAuthCommand.self, HyphenCommand.self, GuardianCommand.self,
                      FCMCommand.self])
}

/// A failure at run time (exit 1), as opposed to a usage error (exit 2).
struct CommandFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Flags that must be http(s) URLs.
func validateHTTPURL(_ value: String, flag: String) throws {
    guard let url = URLComponents(string: value), let scheme = url.scheme?.lowercased(),
          scheme == "http" || scheme == "https", url.host?.isEmpty == false
    else { throw ValidationError("\(flag): expected an http(s) URL, got '\(value)'") }
}

/// `--ttl`-like flags: a positive number of seconds when given.
func validatePositiveSeconds(_ value: Int?, flag: String) throws {
    if let value, value <= 0 { throw ValidationError("\(flag): must be a positive number of seconds, got \(value)") }
}

/// `--sim URL` of the client subcommands.
struct SimOption: ParsableArguments {
    @Option(help: ArgumentHelp("Base URL of a running `pushsim serve` (or `pushsim <provider> serve`).", valueName: "url"))
    var sim: String

    func validate() throws { try validateHTTPURL(sim, flag: "--sim") }

    var client: SimAdminClient { SimAdminClient(baseURL: sim) }
}

/// `--sim`, `--account` and `--issuer` of an `enroll-uri` subcommand: the sim to ask, and the account's label.
struct EnrollmentLabel: ParsableArguments {
    @OptionGroup var sim: SimOption
    @Option(help: "The account name in the URI.") var account: String?
    @Option(help: "The issuer shown for the account.") var issuer: String?
}
