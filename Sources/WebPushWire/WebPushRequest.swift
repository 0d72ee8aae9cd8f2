import HTTPTypes

/// RFC 8030 §5.3: how soon the user agent wants a message, so a device on battery can let the low ones wait.
public enum WebPushUrgency: String, Sendable, Codable, CaseIterable, Comparable {
    case veryLow = "very-low", low, normal, high

    public static func < (lhs: WebPushUrgency, rhs: WebPushUrgency) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// A request for push message delivery (RFC 8030 §5) as its headers describe it, read before the body is: what the
/// push service keeps, for how long, and what it replaces. VAPID is read apart (`VAPIDAuthorization`), since only a
/// restricted subscription requires it.
public struct WebPushRequest: Sendable, Equatable {
    /// Seconds the push service keeps the message for a device that is away; 0: now or never (RFC 8030 §5.2).
    public var ttl: Int
    public var urgency: WebPushUrgency
    /// A newer message with the same topic replaces an undelivered one (RFC 8030 §5.4).
    public var topic: String?
    /// `aes128gcm` (RFC 8188, keyed as RFC 8291 says) for a message with a body; nil for one without.
    public var contentEncoding: String?

    /// RFC 8291 §4: the largest body a push service must take is 4096 octets; more is refused with 413.
    public static let maximumBodyLength = 4096
    /// RFC 8030 §5.4: at most 32 characters of the URL- and filename-safe base64 alphabet.
    public static let maximumTopicLength = 32
}

extension WebPushRequest {
    /// Reads a request's headers. A TTL above `maximumTTL` is lowered to it: the push service says which it kept in
    /// its reply's `TTL` (RFC 8030 §5.2). `bodyLength` is the declared `Content-Length`, when there is one.
    public init(headers: HTTPFields, bodyLength: Int?, maximumTTL: Int) throws(WebPushRefusal) {
        ttl = min(try Self.ttl(headers[.webPushTTL]), maximumTTL)
        urgency = try Self.urgency(headers[.webPushUrgency])
        topic = try Self.topic(headers[.webPushTopic])
        if let bodyLength, bodyLength > Self.maximumBodyLength {
            throw WebPushRefusal(status: 413, "the body is \(bodyLength) bytes; a push message carries at most \(Self.maximumBodyLength) (RFC 8291 §4)")
        }
        contentEncoding = try Self.contentEncoding(headers[.contentEncoding], bodyLength: bodyLength)
    }

    private static func ttl(_ value: String?) throws(WebPushRefusal) -> Int {
        guard let value else {
            throw .badRequest("the TTL header is missing: say how many seconds the message may wait for the device (0 to deliver now or drop it) (RFC 8030 §5.2)")
        }
        // Digits only: "+5", "1e3" or " 5" are no delta-seconds. More than ten digits is more than any TTL kept.
        guard !value.isEmpty, value.utf8.count <= 10, value.utf8.allSatisfy({ (48...57).contains($0) }), let seconds = Int(value) else {
            throw .badRequest("TTL '\(excerpt(value))' is not a number of seconds (RFC 8030 §5.2)")
        }
        return seconds
    }

    private static func urgency(_ value: String?) throws(WebPushRefusal) -> WebPushUrgency {
        guard let value else { return .normal }
        guard let urgency = WebPushUrgency(rawValue: value.lowercased()) else {
            throw .badRequest("Urgency '\(excerpt(value))' is not one of very-low, low, normal, high (RFC 8030 §5.3)")
        }
        return urgency
    }

    private static func topic(_ value: String?) throws(WebPushRefusal) -> String? {
        guard let value else { return nil }
        guard !value.isEmpty, value.utf8.count <= maximumTopicLength, value.utf8.allSatisfy(isBase64URLCharacter) else {
            throw .badRequest("Topic '\(excerpt(value))' must be 1 to \(maximumTopicLength) characters of A-Z a-z 0-9 - _ (RFC 8030 §5.4)")
        }
        return value
    }

    private static func contentEncoding(_ value: String?, bodyLength: Int?) throws(WebPushRefusal) -> String? {
        let hasBody = (bodyLength ?? 0) > 0
        guard let value else {
            if hasBody {
                throw .badRequest("a message with a body needs Content-Encoding: aes128gcm: the body is encrypted for the subscriber (RFC 8291)")
            }
            return nil
        }
        guard value.lowercased() == "aes128gcm" else {
            throw WebPushRefusal(status: 415, "Content-Encoding '\(excerpt(value))' is not taken: this push service carries aes128gcm (RFC 8291), not the drafts' aesgcm")
        }
        return "aes128gcm"
    }

    static func isBase64URLCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }

    /// A header value as an error may quote it: short, and without what a terminal would act on.
    static func excerpt(_ value: String) -> String {
        let printable = value.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : Character($0) }
        return printable.count > 40 ? String(printable.prefix(40)) + "…" : String(printable)
    }
}

extension HTTPField.Name {
    static let webPushTTL = HTTPField.Name("TTL")!
    static let webPushUrgency = HTTPField.Name("Urgency")!
    static let webPushTopic = HTTPField.Name("Topic")!
}
