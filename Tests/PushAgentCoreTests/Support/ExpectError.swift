import Testing

/// Expects `body` to throw an error whose description is exactly `message`: error texts are part of the UX.
func expectError<Result>(_ message: String, sourceLocation: SourceLocation = #_sourceLocation,
                         _ body: () throws -> Result) {
    do {
        _ = try body()
        Issue.record("expected the error \"\(message)\"", sourceLocation: sourceLocation)
    } catch {
        #expect("\(error)" == message, sourceLocation: sourceLocation)
    }
}
