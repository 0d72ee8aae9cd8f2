import Foundation
@testable import PushAgentCore
import SwiftProtobuf
import Testing

/// MCS framing and stanzas: round trips, the stanzas recorded from Google's server in firebase-messaging's
/// tests/fixtures (sdb9696/firebase-messaging; its values are redacted there, its shape is the server's), and hostile
/// streams, each refused with its reason before it can cost memory.
struct MCSFramingTests {
    /// tests/fixtures/data_message_stanza.json of firebase-messaging: a web push as FCM delivers it over MCS.
    static let recordedDataStanza = #"""
        {"id": "ABCDEF12",
         "from": "ZYXW01-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop-1_zyxwvutsrqZYXWVUTSRQ12345",
         "category": "org.chromium.linux",
         "appData": [{"key": "google.source", "value": "webpush"},
                     {"key": "encryption", "value": "salt=zZYXWVUTSRQ12yxwvutsrq=="},
                     {"key": "subtype", "value": "abcdef01-ef12-1234-12ef-abcdef012345"},
                     {"key": "crypto-key", "value": "dh=BAGEFtID7WlmwzQ9pbjdRYAhfPe7Z8lA3ZGIPUh0SE3ikoY2PIrWUP0rmhpE4Kl8ImgMUDjKWrz0WmtLxORIHuw="}],
         "persistentId": "0:0123456789123456%0123456789abcdef", "lastStreamIdReceived": 6, "ttl": 240,
         "sent": "1697189311810", "rawData": "3vJvXzzGf1gF9D7eB6/ioZT+lWWstyY9B/Yjebjm7mU3YTg="}
        """#
    /// tests/fixtures/login_response.json.
    static let recordedLoginResponse = #"""
        {"id": "chrome-63.0.3234.0", "jid": "user@firebase.com/notifications", "lastStreamIdReceived": 1,
         "serverTimestamp": "1697190143057"}
        """#

    static func decodeAll(_ bytes: Data, chunk: Int = 1) throws -> [MCSMessage] {
        var decoder = MCSFrameDecoder()
        var messages: [MCSMessage] = []
        for start in stride(from: 0, to: bytes.count, by: chunk) {
            decoder.append(bytes.dropFirst(start).prefix(chunk))
            while let message = try decoder.next() { messages.append(message) }
        }
        #expect(decoder.pendingByteCount == 0)
        return messages
    }

    @Test func aRecordedServerStreamDecodesByteByByte() throws {
        let login = try McsProto_LoginResponse(jsonString: Self.recordedLoginResponse)
        let data = try McsProto_DataMessageStanza(jsonString: Self.recordedDataStanza)
        var ping = McsProto_HeartbeatPing()
        ping.lastStreamIDReceived = 2
        let stream = try MCSFraming.frame(.loginResponse(login), withVersion: true)
            + MCSFraming.frame(.data(data), withVersion: false) + MCSFraming.frame(.heartbeatPing(ping), withVersion: false)
        #expect(stream.first == 41 && stream[1] == 3)
        for chunk in [1, 7, stream.count] {
            let messages = try Self.decodeAll(stream, chunk: chunk)
            #expect(messages == [.loginResponse(login), .data(data), .heartbeatPing(ping)])
        }
        guard case .data(let decoded) = try Self.decodeAll(stream)[1] else { Issue.record("no data stanza"); return }
        #expect(decoded.persistentID == "0:0123456789123456%0123456789abcdef")
        #expect(MCSMessage.appData(decoded, "crypto-key")?.hasPrefix("dh=BAGEFtID7") == true)
        #expect(MCSMessage.appData(decoded, "encryption") == "salt=zZYXWVUTSRQ12yxwvutsrq==")
        #expect(decoded.rawData.count == 35)
    }

    /// The fuzz seed was written by Google's own protobuf runtime (Python, with firebase-messaging's generated mcs_pb2):
    /// a stream nobody here encoded.
    @Test func aStreamEncodedByGooglesProtobufDecodes() throws {
        let seed = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../../Fuzz/Corpus/FuzzMCSFraming/recorded-stream").standardized
        let messages = try Self.decodeAll(try Data(contentsOf: seed).dropFirst())
        guard messages.count == 3, case .loginResponse(let login) = messages[0], case .data(let data) = messages[1],
              case .heartbeatPing(let ping) = messages[2] else { Issue.record("\(messages)"); return }
        #expect(login.id == "chrome-63.0.3234.0" && login.serverTimestamp == 1_697_190_143_057)
        #expect(data.persistentID == "0:0123456789123456%0123456789abcdef" && data.rawData.count == 35)
        #expect(ping.lastStreamIDReceived == 2)
    }

    @Test func aSelectiveAckCarriesItsIDs() throws {
        let ack = try MCSMessage.selectiveAck(["0:1%a", "0:2%b"])
        let decoded = try Self.decodeAll(try MCSFraming.frame(ack, withVersion: true))
        #expect(decoded.first?.selectivelyAcknowledged == ["0:1%a", "0:2%b"])
        #expect(MCSMessage.heartbeatAck(McsProto_HeartbeatAck()).selectivelyAcknowledged == nil)
    }

    @Test func lengthsUseProtobufVarints() {
        #expect(MCSFraming.varint(0) == Data([0]))
        #expect(MCSFraming.varint(127) == Data([0x7f]))
        #expect(MCSFraming.varint(300) == Data([0xac, 0x02]))
    }

    @Test(arguments: [
        (Data([40, 3, 0]), MCSError.unsupportedVersion(40)),
        // A 2 GiB length prefix is refused at once, not waited for.
        (Data([41, 8, 0x80, 0x80, 0x80, 0x80, 0x08]), MCSError.frameTooLarge(size: 1 << 31, limit: 256 * 1024)),
        (Data([41, 99, 0]), MCSError.unknownTag(99)),
        (Data([41, 8, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]), MCSError.badLength),
    ])
    func hostileFramingIsRefused(stream: Data, expected: MCSError) {
        var decoder = MCSFrameDecoder()
        decoder.append(stream)
        #expect(throws: expected) { _ = try decoder.next() }
    }

    @Test func stanzasThatDoNotDecodeSayWhich() throws {
        var decoder = MCSFrameDecoder()
        // A login response without its required id, then garbage where a data stanza should be.
        decoder.append(Data([41, 3, 0]))
        #expect(throws: MCSError.self) { _ = try decoder.next() }
        var garbage = MCSFrameDecoder()
        garbage.append(Data([41, 8, 3, 0xff, 0xff, 0xff]))
        do {
            _ = try garbage.next()
            Issue.record("garbage decoded")
        } catch {
            guard case .undecodable(let tag, _) = error else { Issue.record("\(error)"); return }
            #expect(tag == 8)
        }
        var other = MCSFrameDecoder()
        other.append(Data([41, 6, 2, 0xaa, 0xbb]))
        #expect(try other.next() == .unhandled(tag: 6), "a presence stanza is skipped, not fatal")
    }

    @Test func anEndlessStreamKeepsMemoryBounded() throws {
        var decoder = MCSFrameDecoder()
        decoder.append(Data([41]))
        let ping = try MCSFraming.frame(.heartbeatPing(McsProto_HeartbeatPing()), withVersion: false)
        let chunk = Data((0..<1000).flatMap { _ in ping })
        var decoded = 0
        for _ in 0..<200 {
            decoder.append(chunk)
            while try decoder.next() != nil { decoded += 1 }
            #expect(decoder.pendingByteCount < ping.count)
        }
        #expect(decoded == 200_000)
    }
}
