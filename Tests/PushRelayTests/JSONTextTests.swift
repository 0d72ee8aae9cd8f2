import Foundation
import Testing
import RelayWire
@testable import PushRelay

@Suite("JSON text")
struct JSONTextTests {
    static let awkward = [
        "", "plain", "quote \" backslash \\ slash /", "controls \n\r\t\u{8}\u{C}\u{0}\u{1F}\u{7F}", "é ünïcödé 🔐",
        "\u{2028}\u{2029}", "{\"nested\": [1, 2]}",
    ]

    @Test(arguments: awkward)
    func aStringMapReadsBackAsItWas(value: String) throws {
        let text = JSONText.object(["key " + value: value, "other": "x"])
        let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String]
        #expect(parsed == ["key " + value: value, "other": "x"])
    }

    /// FCM's 4 KiB limit is counted over the payload as JSONEncoder (sorted keys, slashes unescaped) writes it.
    @Test(arguments: awkward)
    func thePayloadSizeIsJSONEncodersByteCount(value: String) throws {
        let message = OutgoingMessage(
            data: ["a": value, "b/\(value)": "2"], notification: ["title": value], priority: .normal, collapseKey: nil,
            ttlMilliseconds: 1000)
        struct Payload: Encodable {
            var data: [String: String]
            var notification: [String: String]?
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let encoded = try encoder.encode(Payload(data: message.data, notification: message.notification))
        #expect(FCMSendRequest.payloadSize(message) == encoded.count, "\(String(decoding: encoded, as: UTF8.self))")
    }
}

@Suite("Poll reply JSON")
struct PollReplyJSONTests {
    private static func encoded(_ reply: PollReply) throws -> String {
        String(decoding: try jsonBody(reply).readableBytesView, as: UTF8.self)
    }

    /// The reply written by hand is the document the encoder writes, byte for byte, awkward strings included.
    @Test(arguments: JSONTextTests.awkward)
    func aReplyIsWhatJSONEncoderWrites(value: String) throws {
        let reply = PollReply(messages: [
            RelayMessage(seq: 41, id: "0:1/\(value)", data: ["b": value, "a": "1", "type": "push"],
                         notification: ["title": value], priority: .high, sentAt: 1_796_000_000_123, expiresAt: 1_796_000_300_999),
            RelayMessage(seq: 42, id: "m", data: [:], sentAt: 0, expiresAt: 253_402_300_799_000),
        ], next: 42)
        #expect(reply.jsonText == (try Self.encoded(reply)))
    }

    @Test func anEmptyReplyIsWhatJSONEncoderWrites() throws {
        let reply = PollReply(messages: [], next: 7)
        #expect(reply.jsonText == (try Self.encoded(reply)))
    }

    /// Leap days, month and year ends, the epoch, year 9999, before the epoch (Foundation's): the same text as
    /// Foundation's ISO 8601 style.
    @Test func timesAreWhatTheISO8601FormatStyleWrites() {
        var instants: [Int64] = [-86_400_001, -1, 0, 999, 1000, 951_782_400_000, 951_868_799_999, 4_107_542_399_000, 253_402_300_799_999]
        var generator = SystemRandomNumberGenerator()
        instants += (0..<2000).map { _ in Int64.random(in: 0...253_402_300_799_999, using: &generator) }
        for milliseconds in instants {
            let expected = Date(timeIntervalSince1970: Double(milliseconds) / 1000).formatted(.iso8601)
            #expect(RelayTime.rfc3339(milliseconds: milliseconds) == expected, "\(milliseconds)")
        }
    }

    /// The agent reads the relay's whole-second times by hand: the same instant as Foundation's ISO 8601 parser reads,
    /// for every day from 1970 to 9999 tried, and for texts that are not in the calendar the same answer as Foundation's.
    @Test func timesAreReadAsTheISO8601FormatStyleReadsThem() {
        func foundation(_ text: String) -> Int64? {
            let date = (try? Date(text, strategy: .iso8601))
                ?? (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
            return date.map { Int64(($0.timeIntervalSince1970 * 1000).rounded(.down)) }
        }
        var generator = SystemRandomNumberGenerator()
        var instants: [Int64] = [0, 951_782_400_000, 951_868_799_000, 4_107_542_399_000, 253_402_300_799_000]
        instants += (0..<2000).map { _ in Int64.random(in: 0...253_402_300_799, using: &generator) * 1000 }
        for milliseconds in instants {
            let text = RelayTime.rfc3339(milliseconds: milliseconds)
            #expect(RelayTime.milliseconds(rfc3339: text) == milliseconds, "\(text)")
            #expect(RelayTime.milliseconds(rfc3339: text) == foundation(text), "\(text)")
        }
        for text in ["2026-02-29T00:00:00Z", "2024-02-30T00:00:00Z", "2026-04-31T12:00:00Z", "2026-13-01T00:00:00Z",
                     "2026-00-10T00:00:00Z", "2026-01-00T00:00:00Z", "2026-11-27T24:00:00Z", "2026-11-27T23:60:00Z",
                     "2026-12-31T23:59:60Z", "1969-12-31T23:59:59Z", "2026-11-27T04:41:07.250Z", "2026-11-27T04:41:07+01:00",
                     "2026-11-27 04:41:07Z", "2026-11-27T04:41:0xZ", "+026-11-27T04:41:07Z", ""] {
            #expect(RelayTime.milliseconds(rfc3339: text) == foundation(text), "\(text)")
        }
    }
}
