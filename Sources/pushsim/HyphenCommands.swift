import ArgumentParser
import PushSim

struct HyphenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hyphen",
        abstract: "Play Hyphen (REST, sign endpoints) and a minimal Flow access node.",
        subcommands: [Serve.self, User.self, Push.self, Approve.self, Deny.self, Requests.self, Answers.self])

    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve Hyphen's endpoints, a Flow access node under /flow and the admin API; send pushes through the relay.",
            discussion: ServeOptions.discussion)
        @OptionGroup var options: ServeOptions

        func run() async throws { try await options.serve(roles: ["hyphen"]) }
    }

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
        @OptionGroup var sim: SimOption
        @Argument(help: "The 2FA request id (`pushsim hyphen requests`).") var id: String
        @Flag(help: "Send no 2fa-status-change push (the agent must poll).") var noPush = false

        func run() async throws { try await decide(sim, id, approve: true, push: !noPush) }
    }

    struct Deny: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The user's phone denies the agent's sign-in request.")
        @OptionGroup var sim: SimOption
        @Argument(help: "The 2FA request id (`pushsim hyphen requests`).") var id: String
        @Flag(help: "Send no 2fa-status-change push (the agent must poll).") var noPush = false

        func run() async throws { try await decide(sim, id, approve: false, push: !noPush) }
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

    struct Answers: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the agent's approve and deny calls, as checked.")
        @OptionGroup var sim: SimOption
        @OptionGroup var cursor: AnswerCursor

        func run() async throws {
            let answers = try await sim.client.hyphenAnswers(after: cursor.after, wait: cursor.wait)
            if answers.isEmpty { return print("no answers yet") }
            for answer in answers {
                let verified = answer.verified ? "verified" : "NOT verified"
                print("#\(answer.seq) \(answer.id) \(answer.email ?? "-") \(answer.outcome.rawValue)\(answer.txId.map { " tx \($0)" } ?? "") (\(verified))\(answer.error.map { ": \($0)" } ?? "")")
            }
        }
    }
}

private func decide(_ sim: SimOption, _ id: String, approve: Bool, push: Bool) async throws {
    let request = try await sim.client.hyphenDecide(id, approve: approve, push: push)
    print("\(request.id) \(request.status)\(request.txId.map { " tx \($0)" } ?? "")")
}
