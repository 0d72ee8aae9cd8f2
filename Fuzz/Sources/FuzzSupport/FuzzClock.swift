import Foundation

/// Instants the targets use for "now": fixed, so a crash input reproduces whatever the day.
public enum FuzzClock {
    /// When a push arrives (2025-06-15).
    public static let receivedAt = Date(timeIntervalSince1970: 1_750_000_000)
    /// The ends of what the agent treats as a time (1970 and the last second of 9999), and an ordinary day.
    public static let samples = [Date(timeIntervalSince1970: 0), receivedAt, Date(timeIntervalSince1970: 253_402_300_799)]
}
