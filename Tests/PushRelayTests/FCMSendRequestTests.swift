import Foundation
import RelayWire
import Testing
@testable import PushRelay

@Suite("FCM send request validation")
struct FCMSendRequestTests {
    private func parse(_ json: String) throws(FCMError) -> FCMSendRequest {
        try FCMSendRequest.parse(Data(json.utf8))
    }

    private func rejection(_ json: String) -> FCMError? {
        do {
            _ = try parse(json)
            return nil
        } catch {
            return error
        }
    }

    @Test func fullMessage() throws {
        let request = try parse("""
            {"message": {"token": "t1", "data": {"a": "1"}, "notification": {"title": "T", "body": "B"},
             "android": {"priority": "NORMAL", "ttl": "3.5s", "collapse_key": "c", "restricted_package_name": "x"},
             "apns": {"headers": {"apns-priority": "10"}}}}
            """)
        #expect(request.token == "t1")
        #expect(!request.validateOnly)
        #expect(request.message == OutgoingMessage(
            data: ["a": "1"], notification: ["title": "T", "body": "B"], priority: .normal, collapseKey: "c",
            ttlMilliseconds: 3500))
    }

    @Test func fcmDefaults() throws {
        let data = try parse(#"{"message": {"token": "t", "data": {"a": "1"}}}"#).message
        #expect(data.priority == .normal)
        #expect(data.ttlMilliseconds == 28 * 24 * 3600 * 1000)
        #expect(data.collapseKey == nil)
        let notification = try parse(#"{"message": {"token": "t", "notification": {"title": "x"}}}"#).message
        #expect(notification.priority == .high)
        #expect(notification.data.isEmpty)
    }

    /// Before, lower case was refused: what firebase-admin (`AndroidConfig(priority='high')`) and pyfcm send.
    @Test(arguments: [
        (#""high""#, MessagePriority.high), (#""HIGH""#, .high), (#""High""#, .high), ("1", .high),
        (#""normal""#, .normal), (#""NORMAL""#, .normal), ("0", .normal),
    ])
    func priorityByNameInAnyCaseOrByNumber(json: String, priority: MessagePriority) throws {
        #expect(try parse(#"{"message": {"token": "t", "android": {"priority": \#(json)}}}"#).message.priority == priority)
    }

    @Test func androidDataOverridesMessageDataAsOnAndroid() throws {
        let message = try parse(#"{"message": {"token": "t", "data": {"a": "1"}, "android": {"data": {"b": "2"}}}}"#).message
        #expect(message.data == ["b": "2"])
    }

    /// What firebase-admin 7.7.0 sends for a message with every platform block set (its `_messaging_encoder`).
    @Test func everyPlatformBlockAsFirebaseAdminEncodesItIsAccepted() throws {
        let request = try parse("""
            {"message": {"token": "t", "data": {"k": "v"},
             "notification": {"title": "Sign in?", "body": "Approve", "image": "https://example.com/i.png"},
             "android": {"collapse_key": "signin", "priority": "high", "ttl": "3.500000000s",
                         "restricted_package_name": "org.example", "direct_boot_ok": true,
                         "notification": {"title": "t", "body": "b", "channel_id": "c", "notification_priority": "PRIORITY_HIGH",
                                          "event_time": "2026-11-24T12:00:00.000000Z", "vibrate_timings": ["0.500000000s"]},
                         "fcm_options": {"analytics_label": "a"}},
             "apns": {"headers": {"apns-priority": "10"}, "payload": {"aps": {"alert": {"title": "t"}, "badge": 1,
                      "sound": "default", "content-available": 1}}, "fcm_options": {"image": "https://example.com/i.png"}},
             "webpush": {"headers": {"TTL": "300"}, "data": {"w": "1"}, "notification": {"title": "w", "actions": []},
                         "fcm_options": {"link": "https://example.com/"}},
             "fcm_options": {"analytics_label": "signin"}}}
            """)
        #expect(request.message == OutgoingMessage(
            data: ["k": "v"], notification: ["title": "Sign in?", "body": "Approve", "image": "https://example.com/i.png"],
            priority: .high, collapseKey: "signin", ttlMilliseconds: 3500))
    }

    /// proto3's JSON mapping: `null` is a field's default, for every field (issue 24: android, apns, webpush,
    /// fcm_options, validate_only and token were refused).
    @Test func nullIsTheDefaultOfEveryField() throws {
        let request = try parse(#"""
            {"validate_only": null, "message": {"token": "t", "fid": null, "data": {"k": "v"}, "notification": null,
             "android": {"collapse_key": null, "priority": null, "ttl": null, "notification": null, "fcm_options": null,
                         "data": null, "direct_boot_ok": null, "restricted_package_name": null},
             "apns": null, "webpush": null, "fcm_options": null, "topic": null, "condition": null}}
            """#)
        #expect(!request.validateOnly && request.token == "t")
        #expect(request.message == (try parse(#"{"message": {"token": "t", "data": {"k": "v"}}}"#)).message,
                "the same message as with the fields left out")
        #expect(throws: FCMError.self) { try parse(#"{"message": {"token": null, "data": {"k": "v"}}}"#) }
    }

    /// Issue 24: a repeated data key passed with its last value while a field under its two names was refused. Every
    /// repeated name is refused, as Google's JSON parsers refuse them, wherever it is and however it is escaped.
    @Test(arguments: [
        (#"{"message": {"token": "t", "data": {"a": "1", "a": "2"}}}"#, "a", "message.data"),
        (#"{"message": {"token": "t", "data": {"a": "1", "\u0061": "2"}}}"#, "a", "message.data"),
        (#"{"message": {"token": "t", "token": "u"}}"#, "token", "message"),
        (#"{"message": {"token": "t"}, "message": {"token": "u"}}"#, "message", ""),
        (#"{"message": {"token": "t", "android": {"data": {"k": "}", "k": "x"}}}}"#, "k", "message.android.data"),
        (#"{"message": {"token": "t", "apns": {"payload": {"aps": [{"x": 1, "x": 2}]}}}}"#, "x", "message.apns.payload.aps"),
    ])
    func aRepeatedNameIsRefusedAndNamed(json: String, key: String, path: String) throws {
        let error = try #require(rejection(json))
        #expect(error.status == "INVALID_ARGUMENT")
        let location = path.isEmpty ? "" : " at '\(path)'"
        #expect(error.message.contains("Duplicate name \"\(key)\"\(location)"), "\(error.message)")
    }

    /// Found in review: Foundation takes UTF-16 too, and the repeated-name check, reading UTF-8, crashed the relay on
    /// `{"a":"Ģ絽絽"}` in UTF-16LE (its bytes hold `"` and `}` inside characters).
    @Test(arguments: [String.Encoding.utf16LittleEndian, .utf16BigEndian, .utf32LittleEndian, .utf16])
    func aBodyThatIsNotUTF8IsRefused(encoding: String.Encoding) throws {
        let body = try #require(#"{"message": {"token": "t", "data": {"a": "Ģ絽絽"}}}"#.data(using: encoding))
        do {
            _ = try FCMSendRequest.parse(body)
            Issue.record("a \(encoding) body was accepted")
        } catch {
            #expect(error.status == "INVALID_ARGUMENT")
            #expect(error.message.contains("UTF-8"), "\(error.message)")
        }
    }

    @Test func namesThatOnlyLookAlikeAreNotRepeats() throws {
        let request = try parse(#"{"message": {"token": "t", "data": {"a": "a", "b": "\"a\", \"a\"", "A": "x"}, "android": {"data": {"a": "y"}}}}"#)
        #expect(request.message.data == ["a": "y"], "android.data overrides data; the same key in two objects is no repeat")
        #expect(try parse(#"{"message": {"token": "t", "data": {"a": "1", "b": "{\"a\": 2}"}}}"#).message.data.count == 2)
    }

    @Test func camelCaseFieldNamesAndFid() throws {
        let request = try parse(#"{"validateOnly": true, "message": {"fid": "f", "android": {"collapseKey": "k"}, "fcmOptions": {}}}"#)
        #expect(request.validateOnly)
        #expect(request.token == "f")
        #expect(request.message.collapseKey == "k")
    }

    @Test(arguments: [
        #"{"message": {"token": "t", "data": {"a": 1}}}"#,
        #"{"message": {"token": "t", "data": {"a": true}}}"#,
        #"{"message": {"token": "t", "data": {"a": null}}}"#,
        #"{"message": {"token": "t", "data": {"a": {"b": "c"}}}}"#,
        #"{"message": {"token": "t", "data": ["a"]}}"#,
        #"{"message": {"topic": "news"}}"#,
        #"{"message": {"condition": "'a' in topics", "data": {}}}"#,
        #"{"message": {"token": "t", "topic": "news"}}"#,
        #"{"message": {"data": {"a": "b"}}}"#,
        #"{"message": {"token": "t", "fid": "f"}}"#,
        #"{"message": {"token": ""}}"#,
        #"{"message": {"token": 5}}"#,
        #"{"message": {"token": "t", "bogus": 1}}"#,
        #"{"msg": {"token": "t"}}"#,
        #"{"validate_only": "yes", "message": {"token": "t"}}"#,
        #"{"validate_only": false, "validateOnly": true, "message": {"token": "t"}}"#,
        #"{"message": {"token": "t", "android": {"collapse_key": "a", "collapseKey": "b"}}}"#,
        #"{}"#,
        #"[]"#,
        #"not json"#,
        #"{"message": {"token": "t", "notification": {"title": 1}}}"#,
        #"{"message": {"token": "t", "notification": {"sound": "x"}}}"#,
        #"{"message": {"token": "t", "android": {"priority": "urgent"}}}"#,
        #"{"message": {"token": "t", "android": {"priority": 2}}}"#,
        #"{"message": {"token": "t", "android": {"priority": true}}}"#,
        #"{"message": {"token": "t", "android": {"data": {"from": "x"}}}}"#,
        #"{"message": {"token": "t", "android": {"data": {"n": 1}}}}"#,
        #"{"message": {"token": "t", "android": {"ttl": "-1s"}}}"#,
        #"{"message": {"token": "t", "android": {"ttl": "120"}}}"#,
        #"{"message": {"token": "t", "android": {"ttl": 120}}}"#,
        #"{"message": {"token": "t", "android": {"ttl": "2419201s"}}}"#,
        #"{"message": {"token": "t", "android": {"collapse_key": 3}}}"#,
        #"{"message": {"token": "t", "android": "HIGH"}}"#,
        #"{"message": {"token": "t", "apns": "x"}}"#,
        #"{"message": {"token": "t", "data": {"from": "x"}}}"#,
        #"{"message": {"token": "t", "data": {"google.sent_time": "x"}}}"#,
        #"{"message": {"token": "t", "data": {"gcm.notification.title": "x"}}}"#,
    ])
    func invalidArgument(json: String) {
        let error = rejection(json)
        #expect(error?.httpStatus == 400)
        #expect(error?.status == "INVALID_ARGUMENT")
        #expect(error?.errorCode == "INVALID_ARGUMENT")
    }

    @Test func errorNamesTheOffendingDataKey() {
        #expect(rejection(#"{"message": {"token": "t", "data": {"ok": "x", "count": 1}}}"#)?.message.contains("count") == true)
    }

    @Test func payloadLimitIsInclusive() throws {
        func message(dataValueLength: Int, title: String? = nil) -> String {
            let notification = title.map { #", "notification": {"title": "\#($0)"}"# } ?? ""
            return #"{"message": {"token": "t", "data": {"k": "\#(String(repeating: "x", count: dataValueLength))"}\#(notification)}}"#
        }
        // {"data":{"k":"…"}} is 17 bytes around the value.
        #expect(throws: Never.self) { try parse(message(dataValueLength: 4096 - 17)) }
        #expect(rejection(message(dataValueLength: 4096 - 16))?.status == "INVALID_ARGUMENT")
        // The notification counts too: ,"notification":{"title":"ab"} adds 30 bytes.
        #expect(throws: Never.self) { try parse(message(dataValueLength: 4096 - 17 - 30, title: "ab")) }
        #expect(rejection(message(dataValueLength: 4096 - 17 - 29, title: "ab")) != nil)
    }

    @Test func payloadSizeCountsUTF8Bytes() {
        let message = OutgoingMessage(data: ["k": "é/"], notification: nil, priority: .normal, collapseKey: nil, ttlMilliseconds: 0)
        #expect(FCMSendRequest.payloadSize(message) == 17 + 3)
    }

    @Test(arguments: [
        ("0s", 0), ("120s", 120_000), ("3.5s", 3_500), ("0.2s", 200), ("1.000000001s", 1_000), ("2419200s", 2_419_200_000),
    ] as [(String, Int64)])
    func durations(text: String, milliseconds: Int64) {
        #expect(FCMSendRequest.durationMilliseconds(text) == milliseconds)
    }

    @Test(arguments: ["", "s", "120", "-1s", "1.s", ".5s", "1.1234567890s", "1e3s", "１s", "120 s", "9999999999999s"])
    func badDurations(text: String) {
        #expect(FCMSendRequest.durationMilliseconds(text) == nil)
    }
}
