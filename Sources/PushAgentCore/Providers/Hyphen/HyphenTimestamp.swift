import Foundation

/// Hyphen's time strings. The server's documentation shows ISO-8601 with milliseconds (`2023-07-21T18:36:27.872Z`);
/// the Android SDK's sample uses `2023-06-21T00:00:00:000` (a colon before the milliseconds, no zone), and nothing
/// says fractional seconds are always there. Accepted: `YYYY-MM-DDTHH:MM:SS`, then optionally `.` or `:` and 1–9
/// fraction digits, then optionally `Z`, `±HH:MM` or `±HHMM`; no zone means UTC.
public enum HyphenTimestamp {
    public static func parse(_ text: String) -> Date? {
        var scanner = Substring(text.trimmingCharacters(in: .whitespaces)).utf8[...]
        guard let year = number(&scanner, digits: 4), literal(&scanner, "-"),
              let month = number(&scanner, digits: 2), literal(&scanner, "-"),
              let day = number(&scanner, digits: 2), literal(&scanner, "T") || literal(&scanner, "t"),
              let hour = number(&scanner, digits: 2), literal(&scanner, ":"),
              let minute = number(&scanner, digits: 2), literal(&scanner, ":"),
              let second = number(&scanner, digits: 2)
        else { return nil }
        var fraction = 0.0
        if literal(&scanner, ".") || literal(&scanner, ":") {
            let digits = scanner.prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
            guard (1...9).contains(digits.count), let value = Double("0." + String(decoding: digits, as: UTF8.self))
            else { return nil }
            fraction = value
            scanner = scanner.dropFirst(digits.count)
        }
        guard let offset = zoneOffset(&scanner), scanner.isEmpty else { return nil }
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard let date = calendar.date(from: components),
              calendar.component(.day, from: date) == day // refuses 2023-02-30 instead of rolling it over
        else { return nil }
        let instant = date.addingTimeInterval(fraction - TimeInterval(offset))
        return WireTime.isRepresentable(instant) ? instant : nil
    }

    /// ISO-8601 with milliseconds, UTC: how pushsim (and the Hyphen documentation) writes times.
    public static func format(_ date: Date) -> String {
        // Rounded to the millisecond by hand: the formatter truncates, turning .872 stored as .87199… into .871.
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (seconds, fraction) = millis.quotientAndRemainder(dividingBy: 1000)
        let whole = Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(.iso8601)
        return whole.dropLast() + String(format: ".%03dZ", fraction)
    }

    private static func number(_ scanner: inout Substring.UTF8View.SubSequence, digits: Int) -> Int? {
        let prefix = scanner.prefix(digits)
        guard prefix.count == digits, prefix.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return nil
        }
        scanner = scanner.dropFirst(digits)
        return Int(String(decoding: prefix, as: UTF8.self))
    }

    private static func literal(_ scanner: inout Substring.UTF8View.SubSequence, _ character: Unicode.Scalar) -> Bool {
        guard scanner.first == UInt8(ascii: character) else { return false }
        scanner = scanner.dropFirst()
        return true
    }

    /// Seconds east of UTC; nil when what follows is not a zone.
    private static func zoneOffset(_ scanner: inout Substring.UTF8View.SubSequence) -> Int? {
        if scanner.isEmpty || literal(&scanner, "Z") || literal(&scanner, "z") { return 0 }
        let sign: Int
        if literal(&scanner, "+") { sign = 1 } else if literal(&scanner, "-") { sign = -1 } else { return nil }
        guard let hours = number(&scanner, digits: 2) else { return nil }
        _ = literal(&scanner, ":")
        guard let minutes = number(&scanner, digits: 2), hours < 24, minutes < 60 else { return nil }
        return sign * (hours * 3600 + minutes * 60)
    }
}
