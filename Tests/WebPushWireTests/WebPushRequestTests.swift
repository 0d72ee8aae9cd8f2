import HTTPTypes
import Testing
@testable import WebPushWire

/// A push message request's headers read as RFC 8030 §5 and RFC 8291 §4 say.
struct WebPushRequestTests {
    func read(_ fields: [String: String], bodyLength: Int? = 100, maximumTTL: Int = 2_419_200) throws(WebPushRefusal) -> WebPushRequest {
        var headers = HTTPFields()
        for (name, value) in fields { headers[HTTPField.Name(name)!] = value }
        return try WebPushRequest(headers: headers, bodyLength: bodyLength, maximumTTL: maximumTTL)
    }

    @Test func whatPywebpushSendsIsRead() throws {
        let request = try read(["TTL": "60", "Content-Encoding": "aes128gcm", "Urgency": "high", "Topic": "chat-42"])
        #expect(request == WebPushRequest(ttl: 60, urgency: .high, topic: "chat-42", contentEncoding: "aes128gcm"))
    }

    @Test func defaultsAndLimits() throws {
        let plain = try read(["TTL": "0"], bodyLength: 0)
        #expect(plain.urgency == .normal)
        #expect(plain.topic == nil && plain.contentEncoding == nil && plain.ttl == 0)
        #expect(try read(["TTL": "999999999", "Content-Encoding": "aes128gcm"], maximumTTL: 86_400).ttl == 86_400)
        #expect(try read(["TTL": "1", "Content-Encoding": "aes128gcm"], bodyLength: 4096).ttl == 1)
    }

    @Test(arguments: [
        (["Content-Encoding": "aes128gcm"], 400, "TTL header is missing"),
        (["TTL": "-1", "Content-Encoding": "aes128gcm"], 400, "not a number of seconds"),
        (["TTL": "1e3", "Content-Encoding": "aes128gcm"], 400, "not a number of seconds"),
        (["TTL": "", "Content-Encoding": "aes128gcm"], 400, "not a number of seconds"),
        (["TTL": "5", "Urgency": "urgent", "Content-Encoding": "aes128gcm"], 400, "very-low, low, normal, high"),
        (["TTL": "5", "Topic": "has space", "Content-Encoding": "aes128gcm"], 400, "Topic"),
        (["TTL": "5", "Topic": String(repeating: "a", count: 33), "Content-Encoding": "aes128gcm"], 400, "1 to 32"),
        (["TTL": "5"], 400, "needs Content-Encoding: aes128gcm"),
        (["TTL": "5", "Content-Encoding": "aesgcm"], 415, "not the drafts' aesgcm"),
    ])
    func badRequestsSayWhatIsWrong(fields: [String: String], status: Int, says: String) {
        let refusal = #expect(throws: WebPushRefusal.self) { try read(fields) }
        #expect(refusal?.status == status)
        #expect(refusal?.reason.contains(says) == true)
    }

    @Test func aBodyOverFourKilobytesIs413() {
        let refusal = #expect(throws: WebPushRefusal.self) {
            try read(["TTL": "5", "Content-Encoding": "aes128gcm"], bodyLength: 4097)
        }
        #expect(refusal?.status == 413)
    }

    @Test func quotedValuesCannotCarryControlCharacters() {
        let refusal = #expect(throws: WebPushRefusal.self) { try read(["TTL": "5", "Urgency": "hi\u{1B}[2J"]) }
        #expect(refusal?.reason.contains("\u{1B}") == false)
    }

    @Test func urgenciesAreOrdered() {
        #expect(WebPushUrgency.veryLow < .low && WebPushUrgency.low < .normal && WebPushUrgency.normal < .high)
    }
}
