import Foundation
import Testing
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
