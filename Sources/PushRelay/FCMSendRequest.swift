import Foundation
import RelayWire

/// A message as the sender asked for it, before the relay gives it a sequence number: what
/// `FCMSendRequest` parses a send into, and the store keeps.
struct OutgoingMessage: Sendable, Equatable {
    var data: [String: String]
    var notification: [String: String]?
    var priority: MessagePriority
    var collapseKey: String?
    var ttlMilliseconds: Int64
}

/// A validated `messages:send` body. Validation follows FCM HTTP v1 for the subset the relay supports,
/// with FCM's error statuses, so a sender that works against FCM behaves the same here.
struct FCMSendRequest: Equatable, Sendable {
    var token: String
    var message: OutgoingMessage
    var validateOnly: Bool

    /// FCM's limit, measured here over `{"data": …, "notification": …}` as compact JSON with sorted keys.
    static let maxPayloadBytes = 4096
    /// FCM's default and maximum TTL: four weeks.
    static let maxTTLMilliseconds: Int64 = 2_419_200_000

    private static let topLevelFields: Set = ["validate_only", "message"]
    private static let messageFields: Set = [
        "name", "data", "notification", "android", "webpush", "apns", "fcm_options", "token", "fid", "topic", "condition",
    ]
    private static let notificationFields: Set = ["title", "body", "image"]

    static func parse(_ body: Data) throws(FCMError) -> FCMSendRequest {
        // RFC 8259 §8.1: JSON between systems is UTF-8. Foundation would also take UTF-16 and UTF-32 (it guesses from
        // the first bytes), which FCM refuses and which the relay's checks, reading UTF-8, must never see.
        if body.prefix(4).contains(0) || body.starts(with: [0xFE, 0xFF]) || body.starts(with: [0xFF, 0xFE]) {
            throw .invalidArgument("Invalid JSON payload received. The body must be UTF-8 JSON (it looks like UTF-16 or UTF-32).")
        }
        guard let document = JSONReader.read(body), case .object(let request) = document.value else {
            throw .invalidArgument("Invalid JSON payload received. Expected a JSON object.")
        }
        if let repeated = document.repeatedName {
            let location = repeated.path.isEmpty ? "" : " at '\(repeated.path)'"
            throw .invalidArgument("Invalid JSON payload received. Duplicate name \"\(repeated.key)\"\(location): give each field or data key once.")
        }
        let top = try fields(request, allowed: topLevelFields, at: nil)
        var validateOnly = false
        switch top["validate_only"] {
        case nil: break
        case .bool(let value)?: validateOnly = value
        case let other?: throw .invalidArgument("Invalid value at 'validate_only' (TYPE_BOOL), got \(other.typeName)")
        }
        guard case .object(let rawMessage)? = top["message"] else {
            throw .invalidArgument("Invalid value at 'message': a message object is required")
        }
        let message = try fields(rawMessage, allowed: messageFields, at: "message")
        if message["topic"] != nil || message["condition"] != nil {
            throw .invalidArgument("Topic and condition targets are not supported by this relay; send to a registration token")
        }
        let token = try target(message)
        let data = try dataPayload(message["data"], at: "message.data") ?? [:]
        let notification = try stringMap(message["notification"], at: "message.notification")
        if let notification, !notificationFields.isSuperset(of: notification.keys),
           let unknown = notification.keys.sorted().first(where: { !notificationFields.contains($0) }) {
            throw .invalidArgument("Invalid JSON payload received. Unknown name \"\(unknown)\" at 'message.notification': Cannot find field.")
        }
        for name in ["apns", "webpush", "fcm_options"] {
            guard let value = message[name] else { continue }
            guard case .object = value else {
                throw .invalidArgument("Invalid value at 'message.\(name)': expected an object, got \(value.typeName)")
            }
        }
        let android = try androidOptions(message["android"])
        let outgoing = OutgoingMessage(
            // FCM: "android.data … If present, it will override Message.data" on Android, which the device here is.
            data: android.data ?? data, notification: notification,
            // FCM's Android defaults: notification messages go high priority, data messages normal.
            priority: android.priority ?? (notification == nil ? .normal : .high),
            collapseKey: android.collapseKey, ttlMilliseconds: android.ttlMilliseconds ?? maxTTLMilliseconds)
        let size = payloadSize(outgoing)
        guard size <= maxPayloadBytes else {
            throw .invalidArgument("Message is too big: the payload is \(size) bytes, the limit is \(maxPayloadBytes)")
        }
        return FCMSendRequest(token: token, message: outgoing, validateOnly: validateOnly)
    }

    /// Google's JSON mapping accepts a field by its proto name or its lowerCamelCase name; this brings both to
    /// the proto name and refuses fields FCM does not know (any name passes when `allowed` is nil). A field set to
    /// `null` is left out, as proto3's JSON mapping reads it ("the default value"): senders that write unset fields
    /// as null (Go structs without omitempty, some Java mappers) are understood.
    private static func fields(_ object: [String: JSONValue], allowed: Set<String>?, at path: String?) throws(FCMError) -> [String: JSONValue] {
        func location() -> String { path.map { " at '\($0)'" } ?? "" }
        var result: [String: JSONValue] = [:]
        result.reserveCapacity(object.count)
        for (key, value) in object {
            let name = snakeCase(key)
            if let allowed, !allowed.contains(name) {
                // The first unknown name in order, so that the error does not depend on hashing.
                let unknown = object.keys.sorted().first { !allowed.contains(snakeCase($0)) } ?? key
                throw .invalidArgument("Invalid JSON payload received. Unknown name \"\(unknown)\"\(location()): Cannot find field.")
            }
            if case .null = value { continue }
            // Both names of one field: which value won would depend on hashing (a real send or a dry run).
            guard result.updateValue(value, forKey: name) == nil else {
                throw .invalidArgument("Invalid JSON payload received. Field \"\(name)\"\(location()) is given twice, by its proto and its lowerCamelCase name.")
            }
        }
        return result
    }

    /// lowerCamelCase to snake_case; field names are ASCII, and most arrive in snake_case already.
    private static func snakeCase(_ key: String) -> String {
        guard key.utf8.contains(where: { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) else { return key }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(key.utf8.count + 4)
        for byte in key.utf8 {
            if (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) {
                bytes.append(UInt8(ascii: "_"))
                bytes.append(byte + 32)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func target(_ message: [String: JSONValue]) throws(FCMError) -> String {
        switch (message["token"], message["fid"]) {
        case (.string(let token)?, nil), (nil, .string(let token)?):
            guard !token.isEmpty else { throw .invalidArgument("The registration token is empty") }
            return token
        case (nil, nil):
            throw .invalidArgument("Recipient of the message is not set: give message.token")
        case (.some, .some):
            throw .invalidArgument("Give only one of message.token and message.fid")
        case (let value?, nil), (nil, let value?):
            throw .invalidArgument("Invalid value at 'message.token' (TYPE_STRING), got \(value.typeName)")
        }
    }

    private static func stringMap(_ value: JSONValue?, at path: String) throws(FCMError) -> [String: String]? {
        switch value {
        case nil, .null?:
            return nil
        case .object(let object)?:
            var result: [String: String] = [:]
            result.reserveCapacity(object.count)
            for (key, value) in object {
                guard case .string(let string) = value else {
                    // The first such key in order, so that the error does not depend on hashing.
                    let key = object.keys.sorted().first { if case .string = object[$0] { false } else { true } } ?? key
                    throw .invalidArgument(
                        "Invalid value at '\(path)[\"\(key)\"]' (TYPE_STRING), got \(object[key]?.typeName ?? "nothing"): values must be strings")
                }
                result[key] = string
            }
            return result
        case let other?:
            throw .invalidArgument("Invalid value at '\(path)': expected an object, got \(other.typeName)")
        }
    }

    private static func dataPayload(_ value: JSONValue?, at path: String) throws(FCMError) -> [String: String]? {
        let data = try stringMap(value, at: path)
        if let data, data.keys.contains(where: isReservedDataKey), let reserved = data.keys.sorted().first(where: isReservedDataKey) {
            throw .invalidArgument("Invalid data payload key: \(reserved)")
        }
        if let data, let reserved = data.keys.sorted().first(where: { $0.hasPrefix(WebPushDataKey.reservedPrefix) }) {
            throw .invalidArgument("Invalid data payload key: \(reserved): the prefix \"\(WebPushDataKey.reservedPrefix)\" is reserved for the relay's Web Push messages; rename the key")
        }
        return data
    }

    /// FCM reserves these data keys for its own use.
    private static func isReservedDataKey(_ key: String) -> Bool {
        key == "from" || key == "message_type" || key.hasPrefix("google") || key.hasPrefix("gcm")
    }

    private struct AndroidOptions {
        var data: [String: String]?
        var priority: MessagePriority?
        var collapseKey: String?
        var ttlMilliseconds: Int64?
    }

    /// Priority, TTL, collapse key and data matter to the relay; FCM's other Android fields (notification,
    /// restricted_package_name, fcm_options, direct_boot_ok, …) are accepted and ignored.
    private static func androidOptions(_ value: JSONValue?) throws(FCMError) -> AndroidOptions {
        guard let value else { return AndroidOptions() }
        guard case .object(let raw) = value else {
            throw .invalidArgument("Invalid value at 'message.android': expected an object, got \(value.typeName)")
        }
        let android = try fields(raw, allowed: nil, at: "message.android")
        var options = AndroidOptions()
        options.data = try dataPayload(android["data"], at: "message.android.data")
        // Proto3 JSON takes an enum by name or by number; FCM takes the name in any case ("high" is what
        // firebase-admin and pyfcm send).
        switch android["priority"] {
        case nil, .null?: break
        case .string(let name)? where name.uppercased() == "HIGH": options.priority = .high
        case .string(let name)? where name.uppercased() == "NORMAL": options.priority = .normal
        case .number(1)?: options.priority = .high
        case .number(0)?: options.priority = .normal
        case let other?: throw .invalidArgument("Invalid value at 'message.android.priority' (type.googleapis.com/google.firebase.fcm.v1.AndroidMessagePriority), \(describe(other)): use \"HIGH\" or \"NORMAL\"")
        }
        switch android["collapse_key"] {
        case nil, .null?: break
        case .string(let key)?: options.collapseKey = key
        case let other?: throw .invalidArgument("Invalid value at 'message.android.collapse_key' (TYPE_STRING), got \(other.typeName)")
        }
        switch android["ttl"] {
        case nil, .null?: break
        case .string(let text)?:
            guard let milliseconds = durationMilliseconds(text) else {
                throw .invalidArgument("Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration), \"\(text)\": use seconds like \"120s\" or \"3.5s\"")
            }
            guard milliseconds <= maxTTLMilliseconds else {
                throw .invalidArgument("Invalid value at 'message.android.ttl': \"\(text)\" is longer than the maximum of 2419200s (4 weeks)")
            }
            options.ttlMilliseconds = milliseconds
        case let other?:
            throw .invalidArgument("Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration), got \(other.typeName)")
        }
        return options
    }

    private static func describe(_ value: JSONValue) -> String {
        if case .string(let text) = value { return "\"\(text)\"" }
        return value.typeName
    }

    /// Parses the protobuf Duration JSON form `<seconds>[.<up to 9 digits>]s`, non-negative only.
    static func durationMilliseconds(_ text: String) -> Int64? {
        guard text.hasSuffix("s") else { return nil }
        let parts = text.dropLast().split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let isDigits = { (part: Substring) in part.allSatisfy { ("0"..."9").contains($0) } }
        guard let whole = parts.first, (1...12).contains(whole.count), isDigits(whole), let seconds = Int64(whole) else {
            return nil
        }
        guard parts.count == 2 else { return seconds * 1000 }
        guard (1...9).contains(parts[1].count), isDigits(parts[1]), let milliseconds = Int64((parts[1] + "00").prefix(3)) else {
            return nil
        }
        return seconds * 1000 + milliseconds
    }

    /// The payload's size as compact JSON, `{"data":{…},"notification":{…}}` (an empty data map left out).
    static func payloadSize(_ message: OutgoingMessage) -> Int {
        var fields: [String] = []
        if !message.data.isEmpty { fields.append("\"data\":" + JSONText.object(message.data)) }
        if let notification = message.notification { fields.append("\"notification\":" + JSONText.object(notification)) }
        return fields.reduce(2 + max(0, fields.count - 1)) { $0 + $1.utf8.count }
    }
}
