import Foundation

/// Times read from a push or a provider's reply. Whatever a peer sends, the agent keeps only instants it can store,
/// print and read back: the store's text dates and ISO 8601 end at year 9999, and a provider's epoch time is never
/// before 1970. A number outside that range is nonsense, not a time, and is refused where it is read.
public enum WireTime {
    /// 1970-01-01T00:00:00Z ... 9999-12-31T23:59:59Z, in seconds since the epoch.
    public static let representableSeconds: ClosedRange<Double> = 0...253_402_300_799

    /// The instant `seconds` after the epoch; nil for NaN, infinities and anything outside `representableSeconds`.
    public static func date(epochSeconds seconds: Double) -> Date? {
        guard seconds.isFinite, representableSeconds.contains(seconds) else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    /// The instant `millis` milliseconds after the epoch, under the same bounds.
    public static func date(epochMillis millis: Int64) -> Date? {
        date(epochSeconds: Double(millis) / 1000)
    }

    public static func isRepresentable(_ date: Date) -> Bool {
        representableSeconds.contains(date.timeIntervalSince1970)
    }

    /// Whole seconds from `start` to `end` for a message, saturating instead of trapping on a huge interval.
    public static func wholeSeconds(from start: Date, to end: Date) -> Int64 {
        let interval = end.timeIntervalSince(start).rounded(.towardZero)
        guard interval.isFinite else { return interval > 0 ? .max : .min }
        return Int64(exactly: interval) ?? (interval > 0 ? .max : .min)
    }
}
