import Foundation

/// What to log of connections refused over a bound. A flood keeps a server at its bound, each closed connection
/// making room for one more refusal: a line per refusal (or per return to the bound) drowns the journal. So the
/// first refusal of each key is logged, and the later ones are counted and summed up at most once per
/// `summaryInterval`.
public struct RefusalLog<Key: Hashable & Sendable>: Sendable {
    public static var summaryInterval: TimeInterval { 60 }

    /// What a refusal is to log: the first of its key, or the count since the key's last line.
    public enum Line: Equatable, Sendable {
        case first
        case summary(count: Int, seconds: Int)
    }

    private struct Refusals {
        var loggedAt: Date
        var since = 0
    }

    private var refused: [Key: Refusals] = [:]

    public init() {}

    /// Counts a refusal of `key`; the line to log for it, if any.
    public mutating func refusal(of key: Key, at now: Date) -> Line? {
        guard var refusals = refused[key] else {
            refused[key] = Refusals(loggedAt: now)
            return .first
        }
        refusals.since += 1
        let elapsed = now.timeIntervalSince(refusals.loggedAt)
        defer { refused[key] = refusals }
        guard elapsed >= Self.summaryInterval else { return nil }
        let line = Line.summary(count: refusals.since, seconds: Int(elapsed))
        refusals = Refusals(loggedAt: now)
        return line
    }
}
