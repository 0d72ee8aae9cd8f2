import Foundation
import GRDB
import RelayWire

/// A date as GRDB stores it ("yyyy-MM-dd HH:mm:ss.SSS", UTC, to the nearest millisecond), written without GRDB's
/// `DateFormatter`: ICU formatting a push's dates took a fiftieth of the agent's CPU. The text is the same (checked
/// against GRDB's in StoredDateTests), so rows written either way, and dates bound as query arguments, compare alike.
enum StoredDate {
    /// For the records a push writes.
    static let encoding = DatabaseDateEncodingStrategy.custom { databaseValue($0) }

    /// Years 1970–9999 (what the store keeps) are written here; any other date as GRDB writes it.
    static func databaseValue(_ date: Date) -> any DatabaseValueConvertible {
        // As Foundation's formatter rounds: to the nearest millisecond, from the time since 1970.
        let milliseconds = ((date.timeIntervalSinceReferenceDate + Date.timeIntervalBetween1970AndReferenceDate) * 1000 + 0.5)
            .rounded(.down)
        guard milliseconds >= 0, milliseconds < 253_402_300_800_000 else { return date }
        let total = Int64(milliseconds)
        let (days, time) = total.quotientAndRemainder(dividingBy: 86_400_000)
        let (year, month, day) = CivilDate.of(daysSince1970: days)
        var text = [UInt8](repeating: UInt8(ascii: "0"), count: 23)
        func put(_ value: Int64, at end: Int) {
            var value = value, index = end
            while value > 0 {
                text[index] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
                index -= 1
            }
        }
        put(year, at: 3)
        put(month, at: 6)
        put(day, at: 9)
        put(time / 3_600_000, at: 12)
        put(time / 60_000 % 60, at: 15)
        put(time / 1000 % 60, at: 18)
        put(time % 1000, at: 22)
        for (index, separator) in [(4, "-"), (7, "-"), (10, " "), (13, ":"), (16, ":"), (19, ".")] as [(Int, Unicode.Scalar)] {
            text[index] = UInt8(ascii: separator)
        }
        return String(decoding: text, as: UTF8.self)
    }
}
