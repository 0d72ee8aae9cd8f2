import ArgumentParser
import Foundation

/// The entry point every program shares: the project's contract is exit 2 for a bad flag or value (ArgumentParser
/// would use 64), 1 for a failure at run time with a message naming the program, and `ExitCode`s passed through.
public enum CommandEntry {
    public static func main<Command: ParsableCommand>(_ type: Command.Type, name: String,
                                                      arguments: [String] = Array(CommandLine.arguments.dropFirst())) async -> Never {
        let command: any ParsableCommand
        do {
            command = try type.parseAsRoot(arguments)
        } catch {
            let code = type.exitCode(for: error)
            write(type.fullMessage(for: error), toStandardError: code != .success)
            exit(code == .success ? 0 : 2)
        }
        do {
            try await run(command)
            exit(0)
        } catch let code as ExitCode {
            exit(code.rawValue)
        } catch let error as ValidationError {
            write("\(name): \(error.message)", toStandardError: true)
            exit(2)
        } catch {
            let code = type.exitCode(for: error)
            if code == .success {
                // A command group run without a subcommand shows its help, as ArgumentParser's own main does.
                write(type.fullMessage(for: error), toStandardError: code != .success)
                exit(code == .success ? 0 : 2)
            }
            write("\(name): \(error)", toStandardError: true)
            exit(1)
        }
    }

    /// In a function, not top-level code: there the synchronous `run()` (which only prints help) would be chosen.
    private static func run(_ command: any ParsableCommand) async throws {
        if var asyncCommand = command as? any AsyncParsableCommand {
            try await asyncCommand.run()
        } else {
            var syncCommand = command
            try syncCommand.run()
        }
    }

    private static func write(_ message: String, toStandardError: Bool) {
        FileHandle(fileDescriptor: toStandardError ? 2 : 1).write(Data((message + "\n").utf8))
    }
}
