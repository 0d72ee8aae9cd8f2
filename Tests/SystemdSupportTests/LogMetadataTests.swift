import Logging
import Testing
@testable import SystemdSupport

@Suite struct LogMetadataTests {
    private struct Refused: Error, CustomStringConvertible {
        var description: String { "connection refused" }
    }

    private func event(_ metadata: Logger.Metadata?, error: (any Error)? = nil) -> LogEvent {
        LogEvent(level: .info, message: "m", error: error, metadata: metadata, source: nil, file: "f", function: "g", line: 1)
    }

    @Test func callSiteBeatsProviderBeatsHandler() {
        let provider = Logger.MetadataProvider { ["request": "provider", "trace": "t1"] }
        let merged = LogMetadata.merge(
            handler: ["request": "handler", "device": "d1"], provider: provider,
            event: event(["request": "call"]))
        #expect(merged.mapValues(LogMetadata.flatten) == ["request": "call", "device": "d1", "trace": "t1"])
    }

    @Test func attachedErrorKept() {
        #expect(LogMetadata.merge(handler: [:], provider: nil, event: event(nil, error: Refused()))["error"] == "connection refused")
        #expect(LogMetadata.merge(handler: [:], provider: nil, event: event(["error": "own"], error: Refused()))["error"] == "own")
    }
}
