import ArgumentParser

/// `--after SEQ --wait SECONDS` of every role's `answers` subcommand.
struct AnswerCursor: ParsableArguments {
    @Option(help: ArgumentHelp("Only answers after this sequence number.", valueName: "seq")) var after = 0
    @Option(help: ArgumentHelp("Wait up to this many seconds for a new answer.", valueName: "seconds")) var wait = 0

    func validate() throws {
        guard after >= 0 else { throw ValidationError("--after: must not be negative, got \(after)") }
        guard (0...60).contains(wait) else { throw ValidationError("--wait: must be 0 to 60 seconds, got \(wait)") }
    }
}
