import Foundation
import GRDB
import PushAgentCore
@testable import PushAgentStore
import Testing

/// The records every push writes encode their columns by hand: each must give the row its `Encodable` conformance
/// (the one they are read back with) gives, every column included.
struct RecordEncodingTests {
    /// The same record through GRDB's `Encodable` path, which a hand-written `encode(to:)` replaces.
    /// With the record's own date strategy, which the hand-written encoding must follow.
    struct ThroughEncodable<Record: EncodableRecord & Encodable>: EncodableRecord, Encodable {
        var record: Record
        func encode(to encoder: any Encoder) throws { try record.encode(to: encoder) }
        static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
            Record.databaseDateEncodingStrategy(for: column)
        }
    }

    let when = Date(timeIntervalSince1970: 1_800_000_000.123)

    @Test func anApprovalsRowIsTheOneItsEncodableConformanceGives() throws {
        var full = try ApprovalRecord(id: "apr_1", draft: ApprovalDraft(
            provider: .forgerock, accountId: "acc_1", kind: .number, numbers: ["1", "2"], title: "t", message: "m",
            context: ApprovalContext(ip: "192.0.2.1"), requestedAt: when, expiresAt: when.addingTimeInterval(120),
            dedupeKey: "k", answerContext: Data([0, 1, 2])), receivedAt: when.addingTimeInterval(0.5))
        (full.state, full.resolvedAt, full.resolution, full.error, full.automatic)
            = ("denied", when.addingTimeInterval(5), #"{"a":1}"#, "e", "superseded")
        #expect(try full.databaseDictionary == ThroughEncodable(record: full).databaseDictionary)
        #expect(try Set(full.databaseDictionary.keys) == Set(ApprovalRecord.CodingKeys.allCases.map(\.rawValue)))
        (full.numbers, full.resolvedAt, full.resolution, full.error, full.receivedAt, full.similarityKey, full.automatic)
            = (nil, nil, nil, nil, nil, nil, nil)
        #expect(try full.databaseDictionary == ThroughEncodable(record: full).databaseDictionary)
    }

    @Test func aProcessedMessagesRowIsTheOneItsEncodableConformanceGives() throws {
        let record = ProcessedMessageRecord(relayMessageId: "m1", seq: 7, processedAt: when, outcome: "created")
        #expect(try record.databaseDictionary == ThroughEncodable(record: record).databaseDictionary)
        #expect(try Set(record.databaseDictionary.keys) == Set(ProcessedMessageRecord.CodingKeys.allCases.map(\.rawValue)))
    }
}
