import Foundation

/// Asks on the terminal for the one-time code (the user reads it from an authenticator). An empty answer, or the
/// end of input, cancels quietly. Prompts of concurrent flows take turns.
public struct TerminalPromptFlow: StepUpFlow {
    private let terminal: Terminal

    /// Reads and writes `/dev/tty`, so it works with stdin and stdout redirected.
    public init() throws {
        guard let tty = FileHandle(forUpdatingAtPath: "/dev/tty") else { throw TerminalPromptError.noTerminal }
        terminal = Terminal(input: tty, output: tty)
    }

    /// Asks on other streams (tests, a GUI's pipe).
    public init(input: FileHandle, output: FileHandle) {
        terminal = Terminal(input: input, output: output)
    }

    public func token(for challenge: StepUpChallenge) async throws -> StepUpToken {
        guard challenge.credential == .oneTimeCode else { throw TerminalPromptError.cannotSign(challenge) }
        var question = "\(challenge.origin) asks for a one-time code"
        if let reason = challenge.reason { question += " (\(reason))" }
        if let number = challenge.businessNumber { question += " for \(number)" }
        question += ".\nCode (empty to cancel): "
        guard let answer = try await terminal.ask(question)?.trimmingCharacters(in: .whitespaces), !answer.isEmpty else {
            throw StepUpCancelled()
        }
        return StepUpToken(answer)
    }
}

public enum TerminalPromptError: Error, Equatable, CustomStringConvertible {
    case noTerminal
    case cannotSign(StepUpChallenge)

    public var description: String {
        switch self {
        case .noTerminal: "no terminal to ask on (/dev/tty cannot be opened): use PushAgentFlow, or give the streams"
        case .cannotSign(let challenge): "the \(challenge.trigger) challenge wants a signed receipt, which a terminal prompt cannot give: use PushAgentFlow"
        }
    }
}

/// One question at a time, on a serial queue of its own: reading blocks, so it stays off the cooperative pool.
private final class Terminal: Sendable {
    let input: FileHandle
    let output: FileHandle
    private let queue = DispatchQueue(label: "PushAgentKit.TerminalPromptFlow")

    init(input: FileHandle, output: FileHandle) {
        self.input = input
        self.output = output
    }

    /// The line typed, without its newline; nil at the end of input.
    func ask(_ question: String) async throws -> String? {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { [input, output] in
                do {
                    try output.write(contentsOf: Data(question.utf8))
                    continuation.resume(returning: Self.readLine(input))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    private static func readLine(_ handle: FileHandle) -> String? {
        var line = Data()
        while true {
            guard let byte = try? handle.read(upToCount: 1), let first = byte.first else {
                return line.isEmpty ? nil : String(decoding: line, as: UTF8.self)
            }
            if first == 0x0A { return String(decoding: line, as: UTF8.self) }
            if first != 0x0D { line.append(first) }
        }
    }
}
