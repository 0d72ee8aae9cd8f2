import Foundation
import PushAgentKit
import Testing

/// TerminalPromptFlow with its streams injected (pipes), as a terminal would be.
struct TerminalPromptFlowTests {
    static let challenge = GitHubOTPTrigger().challenge(
        in: ResponseHead(status: 401, headers: [(name: "X-GitHub-OTP", value: "required; app")]), origin: "https://api.example")!

    @Test func asksAndReturnsTheTypedCode() async throws {
        let input = Pipe(), output = Pipe()
        let flow = TerminalPromptFlow(input: input.fileHandleForReading, output: output.fileHandleForWriting)
        let answer = Task { try await flow.token(for: Self.challenge) }
        try input.fileHandleForWriting.write(contentsOf: Data(" 123456 \r\n".utf8))
        #expect(try await answer.value == StepUpToken("123456"))
        try output.fileHandleForWriting.close()
        let prompt = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(prompt.contains("https://api.example asks for a one-time code (one-time password required (delivered by app))"))
        #expect(prompt.hasSuffix("Code (empty to cancel): "))
    }

    @Test func anEmptyAnswerOrTheEndOfInputCancels() async throws {
        let input = Pipe(), output = Pipe()
        let flow = TerminalPromptFlow(input: input.fileHandleForReading, output: output.fileHandleForWriting)
        let empty = Task { try await flow.token(for: Self.challenge) }
        try input.fileHandleForWriting.write(contentsOf: Data("\n".utf8))
        await #expect(throws: StepUpCancelled.self) { try await empty.value }
        let ended = Task { try await flow.token(for: Self.challenge) }
        try input.fileHandleForWriting.close()
        await #expect(throws: StepUpCancelled.self) { try await ended.value }
        withExtendedLifetime(output) {}  // its reading end stays open: writing the prompt into a closed pipe is SIGPIPE
    }

    @Test func aReceiptChallengeIsNotForTheTerminal() async throws {
        var challenge = Self.challenge
        challenge.credential = .receipt
        let flow = TerminalPromptFlow(input: Pipe().fileHandleForReading, output: Pipe().fileHandleForWriting)
        await #expect(throws: TerminalPromptError.cannotSign(challenge)) { try await flow.token(for: challenge) }
    }
}
