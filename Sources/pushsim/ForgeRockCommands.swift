import ArgumentParser
import PushSim

extension ForgeRockCommand {
    struct EnrollURI: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "enroll-uri", abstract: "Print a fresh enrollment URI (what AM's QR code holds).")

        @OptionGroup var sim: SimOption
        @Option(help: "The account name in the URI.") var account: String?
        @Option(help: "The issuer shown for the account.") var issuer: String?
        @Flag(help: "Also carry TOTP parameters (an mfauth://totp URI).") var totp = false

        func run() async throws {
            print(try await sim.client.enrollURI(.init(account: account, issuer: issuer, totp: totp)))
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
            if let ttl, ttl <= 0 { throw ValidationError("--ttl: must be a positive number of seconds, got \(ttl)") }
        }

        func run() async throws {
            let push = try await sim.client.push(.init(account: account, type: type.rawValue, ttl: ttl, message: message))
            print("message id: \(push.messageId)")
            print("account: \(push.account)")
            if let numbers = push.numbers { print("numbers: \(numbers.joined(separator: ", "))") }
            if let correct = push.correctNumber { print("correct number: \(correct)") }
        }
    }

    struct Answers: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the answers the AM endpoint received.")

        @OptionGroup var sim: SimOption
        @OptionGroup var cursor: AnswerCursor

        func run() async throws {
            let answers = try await sim.client.answers(after: cursor.after, wait: cursor.wait)
            if answers.isEmpty { return print("no answers yet") }
            for answer in answers {
                let number = answer.number.map { " number \($0)" } ?? ""
                let verified = answer.verified ? "signature verified" : "NOT verified"
                let error = answer.error.map { ": \($0)" } ?? ""
                print("#\(answer.seq) \(answer.messageId) \(answer.account ?? "-") \(answer.outcome.rawValue)\(number) (\(verified))\(error)")
            }
        }
    }
}

extension ForgeRockCommand {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve AM's push endpoints and the admin API; send pushes through the relay.",
            discussion: ServeOptions.discussion)

        @OptionGroup var options: ServeOptions

        func run() async throws { try await options.serve(roles: ["forgerock"]) }
    }
}
