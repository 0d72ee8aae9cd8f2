import ArgumentParser
import Foundation

// Parsed by hand rather than with `main()`: the project's contract is exit status 2 for a bad flag or value
// (ArgumentParser would use 64), and 1 for a failure at run time.
let command: any ParsableCommand
do {
    command = try PushSimCommand.parseAsRoot(Array(CommandLine.arguments.dropFirst()))
} catch {
    let success = PushSimCommand.exitCode(for: error) == .success
    let message = PushSimCommand.fullMessage(for: error) + "\n"
    FileHandle(fileDescriptor: success ? 1 : 2).write(Data(message.utf8))
    exit(success ? 0 : 2)
}

do {
    try await execute(command)
} catch let failure as CommandFailure {
    FileHandle.standardError.write(Data("pushsim: \(failure.message)\n".utf8))
    exit(1)
} catch {
    // Command groups run without a subcommand show their help, like ArgumentParser's own entry point.
    let code = PushSimCommand.exitCode(for: error)
    let message = PushSimCommand.fullMessage(for: error) + "\n"
    FileHandle(fileDescriptor: code == .success ? 1 : 2).write(Data(message.utf8))
    exit(code == .success ? 0 : 1)
}

/// In a function, not at top level: top-level code picks the synchronous `run()` (which only prints help).
func execute(_ command: any ParsableCommand) async throws {
    if var asyncCommand = command as? any AsyncParsableCommand {
        try await asyncCommand.run()
    } else {
        var syncCommand = command
        try syncCommand.run()
    }
}
