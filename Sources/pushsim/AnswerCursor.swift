import ArgumentParser
import PushSim

/// `--after SEQ --wait SECONDS` of every role's `answers` subcommand.
struct AnswerCursor: ParsableArguments {
    @Option(help: ArgumentHelp("Only answers after this sequence number.", valueName: "seq")) var after = 0
    @Option(help: ArgumentHelp("Wait up to this many seconds for a new answer.", valueName: "seconds")) var wait = 0

    func validate() throws {
        guard after >= 0 else { throw ValidationError("--after: must not be negative, got \(after)") }
        guard (0...60).contains(wait) else { throw ValidationError("--wait: must be 0 to 60 seconds, got \(wait)") }
    }
}

/// An entry of a role's answer log as its `answers` subcommand (`AnswersCommand<Self>`) lists it.
protocol ListedAnswer {
    /// How the line reads: the entry's sequence number, what it answered, and why it was refused.
    var line: String { get }
    /// The subcommand's abstract: which endpoints' answers it lists.
    static var listAbstract: String { get }
    static func page(from sim: SimAdminClient, after: Int, wait: Int) async throws -> [Self]
}

/// `pushsim <provider> answers`: the role's answers after --after, one line each, waiting up to --wait seconds for one.
struct AnswersCommand<Answer: ListedAnswer>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "answers", abstract: Answer.listAbstract)
    }

    @OptionGroup var sim: SimOption
    @OptionGroup var cursor: AnswerCursor

    func run() async throws {
        let answers = try await Answer.page(from: sim.client, after: cursor.after, wait: cursor.wait)
        if answers.isEmpty { return print("no answers yet") }
        for answer in answers { print(answer.line) }
    }
}
