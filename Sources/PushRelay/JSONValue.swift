import Foundation

/// Any JSON value. The send API is validated from this rather than from a typed `Decodable`, because FCM's
/// rules need to tell apart "a number where a string belongs" from "missing", and name the offending field.
enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses a JSON document; nil when it is not one. Through `JSONSerialization`, about five times faster here
    /// than `JSONDecoder` into this enum, which has to guess each value's type and pays a thrown error per wrong
    /// guess; the send API parses every body.
    static func parse(_ data: Data) -> JSONValue? {
        (try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)).map(JSONValue.init(foundation:))
    }

    /// JSON's true and false come as NSNumbers of the class `NSNumber(value: true)` has; other numbers do not.
    private static let booleanClass: AnyClass = type(of: NSNumber(value: true))

    private init(foundation value: Any) {
        switch value {
        case let string as String: self = .string(string)
        case let object as [String: Any]: self = .object(object.mapValues(JSONValue.init(foundation:)))
        case let number as NSNumber:
            self = type(of: number) == Self.booleanClass ? .bool(number.boolValue) : .number(number.doubleValue)
        case let array as [Any]: self = .array(array.map(JSONValue.init(foundation:)))
        default: self = .null
        }
    }

    /// The JSON type's name, for error messages.
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
