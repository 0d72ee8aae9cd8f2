import ArgumentParser
import PushSim

struct HyphenCommand: AsyncParsableCommand, ServedRole {
    static let configuration = CommandConfiguration(
        commandName: "hyphen",
        abstract: "Play Hyphen (REST, sign endpoints) and a minimal Flow access node.",
        subcommands: [RoleServe<Self>.self, User.self, Push.self, Approve.self, Deny.self, Requests.self,
                      AnswersCommand<SimAdminAPI.HyphenAnswer>.self])

    static let serveAbstract = "Serve Hyphen's endpoints, a Flow access node under /flow and the admin API; send pushes "
        + "through the relay."

    struct User: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a user; prints the hyphen:// URI to enroll and the credential for `pushctl hyphen signin`.")
        @OptionGroup var sim: SimOption
        @Option(help: "The user's email (default: userN@example.com).") var email: String?
        @Flag(help: "The user already has an account and a phone that must approve this device's sign-in.")
        var existingDevice = false

        func run() async throws {
            let user = try await sim.client.hyphenUser(.init(email: email, existingDevice: existingDevice))
            print("uri: \(user.uri)")
            print("credential: \(user.credential)")
            print("email: \(user.email)")
            if let address = user.address { print("address: \(address)") }
        }
    }

    struct Push: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Play a new device asking to sign in: send a 2fa-request push to the user's signed-in agent.")
        @OptionGroup var sim: SimOption
        @Option(help: "The user (default: the one whose device signed in last).") var email: String?
        @Option(help: ArgumentHelp("Seconds until the request expires (0 or less: already expired).", valueName: "seconds"))
        var expiresIn: Int?

        func run() async throws {
            let sent = try await sim.client.hyphenPush(.init(email: email, expiresIn: expiresIn))
            print("2fa request: \(sent.id)")
            print("email: \(sent.email)")
        }
    }

    struct Approve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The user's phone approves the agent's sign-in request.")
        @OptionGroup var decision: Decision

        func run() async throws { try await decision.send(approve: true) }
    }

    struct Deny: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The user's phone denies the agent's sign-in request.")
        @OptionGroup var decision: Decision

        func run() async throws { try await decision.send(approve: false) }
    }

    struct Requests: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the 2FA requests, both directions.")
        @OptionGroup var sim: SimOption

        func run() async throws {
            let requests = try await sim.client.hyphenRequests()
            if requests.isEmpty { return print("no requests") }
            for request in requests {
                print("\(request.id) \(request.email) \(request.direction) \(request.status)\(request.txId.map { " tx \($0)" } ?? "")")
            }
        }
    }
}

extension SimAdminAPI.HyphenAnswer: ListedAnswer {
    static let listAbstract = "List the agent's approve and deny calls, as checked."

    static func page(from sim: SimAdminClient, after: Int, wait: Int) async throws -> [Self] {
        try await sim.hyphenAnswers(after: after, wait: wait)
    }

    var line: String {
        let verified = self.verified ? "verified" : "NOT verified"
        return "#\(seq) \(id) \(email ?? "-") \(outcome.rawValue)\(txId.map { " tx \($0)" } ?? "") (\(verified))\(error.map { ": \($0)" } ?? "")"
    }
}

/// What `approve` and `deny` both take: the request and whether the agent hears of the decision by push.
struct Decision: ParsableArguments {
    @OptionGroup var sim: SimOption
    @Argument(help: "The 2FA request id (`pushsim hyphen requests`).") var id: String
    @Flag(help: "Send no 2fa-status-change push (the agent must poll).") var noPush = false

    func send(approve: Bool) async throws {
        let request = try await sim.client.hyphenDecide(id, approve: approve, push: !noPush)
        print("\(request.id) \(request.status)\(request.txId.map { " tx \($0)" } ?? "")")
    }
}
