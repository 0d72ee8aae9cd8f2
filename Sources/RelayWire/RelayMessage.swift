import Foundation

// The relay's device API as both sides see it (docs/design.md §3, docs/relay.md): pushrelay encodes these types,
// pushagentd decodes them, and the fuzz targets feed them hostile bytes.

public enum MessagePriority: String, Sendable, Codable {
    case high, normal
}

/// One delivered message. Times are milliseconds since 1970 in memory and RFC 3339 on the wire.
public struct RelayMessage: Sendable, Equatable, Codable {
    public var seq: Int64
    public var id: String
    public var data: [String: String]
    public var notification: [String: String]?
    public var priority: MessagePriority
    public var sentAt: Int64
    public var expiresAt: Int64

    public init(seq: Int64, id: String, data: [String: String], notification: [String: String]? = nil,
                priority: MessagePriority = .normal, sentAt: Int64, expiresAt: Int64) {
        self.seq = seq
        self.id = id
        self.data = data
        self.notification = notification
        self.priority = priority
        self.sentAt = sentAt
        self.expiresAt = expiresAt
    }

    private enum CodingKeys: String, CodingKey {
        case seq, id, data, notification, priority, sentAt = "sent_at", expiresAt = "expires_at"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(seq, forKey: .seq)
        try c.encode(id, forKey: .id)
        try c.encode(data, forKey: .data)
        try c.encodeIfPresent(notification, forKey: .notification)
        try c.encode(priority, forKey: .priority)
        try c.encode(RelayTime.rfc3339(milliseconds: sentAt), forKey: .sentAt)
        try c.encode(RelayTime.rfc3339(milliseconds: expiresAt), forKey: .expiresAt)
    }

    /// What the device needs is `seq`, `id` and `data`; the rest is read when present, so a relay that leaves out a
    /// field the daemon never acts on still delivers.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        seq = try c.decode(Int64.self, forKey: .seq)
        id = try c.decode(String.self, forKey: .id)
        data = try c.decode([String: String].self, forKey: .data)
        notification = try c.decodeIfPresent([String: String].self, forKey: .notification)
        priority = (try? c.decodeIfPresent(MessagePriority.self, forKey: .priority)) ?? .normal
        sentAt = (try? c.decodeIfPresent(String.self, forKey: .sentAt)).flatMap(RelayTime.milliseconds(rfc3339:)) ?? 0
        expiresAt = (try? c.decodeIfPresent(String.self, forKey: .expiresAt)).flatMap(RelayTime.milliseconds(rfc3339:)) ?? 0
    }
}

/// A poll's reply: the messages after the cursor, and the cursor that acknowledges them.
public struct PollReply: Sendable, Codable {
    public var messages: [RelayMessage]
    public var next: Int64

    public init(messages: [RelayMessage], next: Int64) {
        self.messages = messages
        self.next = next
    }
}

/// `POST /v1/devices`'s reply: the device's id, its push token (what providers send to) and its read secret.
public struct DeviceRegistration: Sendable, Codable {
    public var deviceID: String
    public var token: String
    public var secret: String

    public init(deviceID: String, token: String, secret: String) {
        self.deviceID = deviceID
        self.token = token
        self.secret = secret
    }

    private enum CodingKeys: String, CodingKey {
        case deviceID = "device_id", token, secret
    }
}

public enum RelayTime {
    /// `2026-11-27T04:41:07Z` (whole seconds, UTC), as `Date.ISO8601FormatStyle` writes it, written by hand for years
    /// 1970...9999: the relay writes two per delivered message, and the format style cost more than the rest of the reply.
    public static func rfc3339(milliseconds: Int64) -> String {
        let foundationText = { Date(timeIntervalSince1970: Double(milliseconds) / 1000).formatted(.iso8601) }
        guard milliseconds >= 0 else { return foundationText() }
        let seconds = milliseconds / 1000
        let (year, month, day) = CivilDate.of(daysSince1970: seconds / 86_400)
        guard year <= 9999 else { return foundationText() }
        func digits(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.utf8.count)) + text
        }
        let secondOfDay = seconds % 86_400
        return "\(digits(year, 4))-\(digits(month, 2))-\(digits(day, 2))T\(digits(secondOfDay / 3600, 2)):"
            + "\(digits(secondOfDay / 60 % 60, 2)):\(digits(secondOfDay % 60, 2))Z"
    }

    public static func milliseconds(rfc3339 text: String) -> Int64? {
        if let milliseconds = wholeSecondsUTC(text) { return milliseconds }
        let date = (try? Date(text, strategy: .iso8601))
            ?? (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        return date.map { Int64(($0.timeIntervalSince1970 * 1000).rounded(.down)) }
    }

    /// What `rfc3339(milliseconds:)` writes for years 1970...9999, read by hand: the agent reads two per delivered
    /// message, and Foundation's parser took a hundredth of its CPU a push. Nil for any other text, or a date that is
    /// not in the calendar (February 30, 24:00, a leap second), which Foundation's parser is left to answer.
    private static func wholeSecondsUTC(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { bytes -> Int64? in
            guard bytes.count == 20 else { return nil }
            for (index, separator) in [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":"), (19, "Z")] as [(Int, Unicode.Scalar)] {
                guard bytes[index] == UInt8(ascii: separator) else { return nil }
            }
            func number(_ digits: Range<Int>) -> Int64? {
                var value: Int64 = 0
                for index in digits {
                    let digit = bytes[index] &- UInt8(ascii: "0")
                    guard digit < 10 else { return nil }
                    value = value * 10 + Int64(digit)
                }
                return value
            }
            guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
                  let minute = number(14..<16), let second = number(17..<19),
                  year >= 1970, (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
            else { return nil }
            let days = CivilDate.daysSince1970(year: year, month: month, day: day)
            guard CivilDate.of(daysSince1970: days) == (year, month, day) else { return nil }
            return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000
        }
    }
}
