import Foundation

/// The sign-in context of a Guardian push, `s` and `l`: JSON objects that FCM's string map carries as strings
/// (iOS gets them as objects). Display only, so anything unexpected reads as absent.
enum GuardianContextJSON {
    static func object(_ text: String) -> [String: JSONValue]? {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)),
              case .object(let members) = value else { return nil }
        return members
    }

    /// `{"n": name, "v": version}`; nil when it names neither.
    static func software(_ value: JSONValue?) -> GuardianNotification.Software? {
        guard case .object(let members)? = value else { return nil }
        let software = GuardianNotification.Software(name: text(members["n"]), version: text(members["v"]))
        return software.name == nil && software.version == nil ? nil : software
    }

    /// `{"n", "lat", "long"}`, the coordinates as strings (the SDKs' test payloads) or numbers (what iOS also reads).
    static func location(_ text: String) -> GuardianNotification.Location? {
        guard let members = object(text) else { return nil }
        let location = GuardianNotification.Location(name: self.text(members["n"]), latitude: number(members["lat"]),
                                                      longitude: number(members["long"]))
        return location.name == nil && location.latitude == nil && location.longitude == nil ? nil : location
    }

    private static func text(_ value: JSONValue?) -> String? {
        guard let string = value?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines), !string.isEmpty
        else { return nil }
        return string
    }

    private static func number(_ value: JSONValue?) -> Double? {
        let number: Double? = switch value {
        case .number(let n)?: n
        case .string(let s)?: Double(s.trimmingCharacters(in: .whitespaces))
        default: nil
        }
        return number.flatMap { $0.isFinite ? $0 : nil }
    }
}
