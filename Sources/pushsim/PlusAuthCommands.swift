import ArgumentParser
import Foundation
import PushSim

struct PlusAuthCommand: AsyncParsableCommand, ServedRole {
    static let configuration = CommandConfiguration(
        commandName: "plusauth",
        abstract: "Play PlusAuth's push authenticator (otpauth://push enrollment, signed contexts, resolve).",
        subcommands: [RoleServe<Self>.self, EnrollURI.self, Push.self, AnswersCommand<SimAdminAPI.PlusAuth.Answer>.self])

    static let serveAbstract = "Serve PlusAuth's enroll and resolve endpoints and the admin API; send pushes through the relay."

    struct EnrollURI: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "enroll-uri", abstract: "Print a fresh otpauth://push enrollment URI (what PlusAuth's QR code holds).")

        @OptionGroup var label: EnrollmentLabel
        @Option(help: "The TOTP hash: SHA1, SHA256 or SHA512 (default SHA256).") var algorithm: String?
        @Option(help: "TOTP code length, 6 to 8.") var digits: Int?
        @Option(help: ArgumentHelp("TOTP period.", valueName: "seconds")) var period: Int?

        func run() async throws {
            print(try await label.sim.client.plusAuthEnrollURI(.init(
                account: label.account, issuer: label.issuer, algorithm: algorithm, digits: digits, period: period)))
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
            try validatePositiveSeconds(ttl, flag: "--ttl")
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
}

extension SimAdminAPI.PlusAuth.Answer: ListedAnswer {
    static let listAbstract = "List the answers the resolve endpoints received."

    static func page(from sim: SimAdminClient, after: Int, wait: Int) async throws -> [Self] {
        try await sim.plusAuthAnswers(after: after, wait: wait)
    }

    var line: String {
        let value = self.value.map { " value \($0)" } ?? ""
        let reason = rejectReason.map { " (\($0))" } ?? ""
        let verified = self.verified ? "signature verified" : "NOT verified"
        let error = self.error.map { ": \($0)" } ?? ""
        return "#\(seq) \(pushId ?? "-") \(account ?? "-") \(outcome.rawValue)\(value)\(reason) at \(endpoint) (\(verified))\(error)"
    }
}
