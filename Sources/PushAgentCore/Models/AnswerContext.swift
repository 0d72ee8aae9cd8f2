import Foundation

/// A verified push as a dialect keeps it in `ApprovalDraft.answerContext`, to answer it later. One coding for every
/// dialect: default JSON strategies, so a plain `JSONDecoder` (or `init(answerContext:)`) reads it back.
public protocol AnswerContext: Codable {}

extension AnswerContext {
    public func answerContext() throws -> Data { try JSONEncoder().encode(self) }

    public init(answerContext: Data) throws {
        self = try JSONDecoder().decode(Self.self, from: answerContext)
    }
}
