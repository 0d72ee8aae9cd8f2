import ArgumentParser
import Foundation
import PushSim

struct PlusAuthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plusauth",
        abstract: "Play PlusAuth's push authenticator (otpauth://push enrollment, signed contexts, resolve).",
        subcommands: [Serve.self, EnrollURI.self, Push.self, Answers.self])

    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve PlusAuth's enroll and resolve endpoints and the admin API; send pushes through the relay.",
            discussion: ServeOptions.discussion)

        @OptionGroup var options: ServeOptions

        func run() async throws { try await options.serve(roles: ["plusauth"]) }
    }

    struct EnrollURI: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "enroll-uri", abstract: "Print a fresh otpauth://push enrollment URI (what PlusAuth's QR code holds).")

        @OptionGroup var sim: SimOption
        @Option(help: "The account name in the URI.") var account: String?
        @Option(help: "The issuer shown for the account.") var issuer: String?
        @Option(help: "The TOTP hash: SHA1, SHA256 or SHA512 (default SHA256).") var algorithm: String?
        @Option(help: "TOTP code length, 6 to 8.") var digits: Int?
        @Option(help: ArgumentHelp("TOTP period.", valueName: "seconds")) var period: Int?

        func run() async throws {
            print(try await sim.client.plusAuthEnrollURI(.init(account: account, issuer: issuer, algorithm: algorithm,
                                                               digits: digits, period: period)))
        }
    }

    struct Push: AsyncParsableCommand {
        enum Kind: String, ExpressibleByArgument, CaseIterable {
            case code, prompt
        }

        static let configuration = CommandConfiguration(
            abstract: "Send a signed context to an enrolled account; prints its push id (and the right value for a code push).")

        @OptionGroup var sim: SimOption
        @Option(help: "The account (default: the most recently enrolled).") var account: String?
        @Option(help: "code or prompt.") var type: Kind = .code
        @Option(help: ArgumentHelp("Seconds from iat to exp.", valueName: "seconds")) var ttl: Int?
        @Flag(name: .customLong("bind-sim"), help: "Ask for device binding (settings.bind_sim).") var bindSim = false
        @Flag(help: "Send a context that expired ten minutes ago.") var expired = false
        @Flag(help: "Change the payload after signing, so the signature does not match.") var tampered = false
        @Option(help: "The application named in the context (default: the issuer).") var application: String?
        @Option(name: .customLong("resolve-path"), help: "The path of the context's resolve_url.") var resolvePath: String?

        func validate() throws {
            if let ttl, ttl <= 0 { throw ValidationError("--ttl: must be a positive number of seconds, got \(ttl)") }
        }

        func run() async throws {
            let push = try await sim.client.plusAuthPush(.init(
                account: account, type: type.rawValue, ttl: ttl, bindSim: bindSim, expired: expired,
                tampered: tampered, application: application, resolvePath: resolvePath))
            print("push id: \(push.pushId)")
            print("account: \(push.account)")
            if let values = push.values { print("values: \(values.joined(separator: ", "))") }
            if let correct = push.correctValue { print("correct value: \(correct)") }
        }
    }

    struct Answers: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the answers the resolve endpoints received.")

        @OptionGroup var sim: SimOption
        @OptionGroup var cursor: AnswerCursor

        func run() async throws {
            let answers = try await sim.client.plusAuthAnswers(after: cursor.after, wait: cursor.wait)
            if answers.isEmpty { return print("no answers yet") }
            for answer in answers {
                let value = answer.value.map { " value \($0)" } ?? ""
                let reason = answer.rejectReason.map { " (\($0))" } ?? ""
                let verified = answer.verified ? "signature verified" : "NOT verified"
                let error = answer.error.map { ": \($0)" } ?? ""
                print("#\(answer.seq) \(answer.pushId ?? "-") \(answer.account ?? "-") \(answer.outcome.rawValue)\(value)\(reason) at \(answer.endpoint) (\(verified))\(error)")
            }
        }
    }
}
