import ArgumentParser
import PushSim

struct ForgeRockCommand: AsyncParsableCommand, ServedRole {
    static let configuration = CommandConfiguration(
        commandName: "forgerock",
        abstract: "Play ForgeRock/PingAM push authentication.",
        subcommands: [RoleServe<Self>.self, EnrollURI.self, Push.self, AnswersCommand<SimAdminAPI.Answer>.self])

    static let serveAbstract = "Serve AM's push endpoints and the admin API; send pushes through the relay."

    struct EnrollURI: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "enroll-uri", abstract: "Print a fresh enrollment URI (what AM's QR code holds).")

        @OptionGroup var label: EnrollmentLabel
        @Flag(help: "Also carry TOTP parameters (an mfauth://totp URI).") var totp = false

        func run() async throws {
            print(try await label.sim.client.enrollURI(.init(account: label.account, issuer: label.issuer, totp: totp)))
        }
    }

    struct Push: AsyncParsableCommand {
        enum Kind: String, ExpressibleByArgument, CaseIterable {
            case `default`, challenge, biometric
        }

        static let configuration = CommandConfiguration(
            abstract: "Send a push to an enrolled account; prints its message id (and the right number for a challenge).")

        @OptionGroup var sim: SimOption
        @Option(help: "The account (default: the most recently registered).") var account: String?
        @Option(help: "default, challenge or biometric.") var type: Kind = .default
        @Option(help: ArgumentHelp("Seconds the push stays valid.", valueName: "seconds")) var ttl: Int?
        @Option(help: "Text shown with the push.") var message: String?

        func validate() throws {
            try validatePositiveSeconds(ttl, flag: "--ttl")
        }

        func run() async throws {
            let push = try await sim.client.push(.init(account: account, type: type.rawValue, ttl: ttl, message: message))
            print("message id: \(push.messageId)")
            print("account: \(push.account)")
            if let numbers = push.numbers { print("numbers: \(numbers.joined(separator: ", "))") }
            if let correct = push.correctNumber { print("correct number: \(correct)") }
        }
    }
}

extension SimAdminAPI.Answer: ListedAnswer {
    static let listAbstract = "List the answers the AM endpoint received."

    static func page(from sim: SimAdminClient, after: Int, wait: Int) async throws -> [Self] {
        try await sim.answers(after: after, wait: wait)
    }

    var line: String {
        let number = self.number.map { " number \($0)" } ?? ""
        let verified = self.verified ? "signature verified" : "NOT verified"
        let error = self.error.map { ": \($0)" } ?? ""
        return "#\(seq) \(messageId) \(account ?? "-") \(outcome.rawValue)\(number) (\(verified))\(error)"
    }
}
