/// The deadlines of the waiting polls, by tick of 0.1 s (a coarse timer wheel): one timer serves them all.
/// A timer each, as NIO schedules them, cost 10,000 waiting polls 2.7 MiB, and NIO cancels one (each delivered
/// message cancels its poll's) by a search through all of them.
struct PollDeadlines {
    /// Ticks counted from a fixed origin (when the first deadline was filed).
    typealias Tick = Int64

    /// A tick, 0.1 s: how late a poll may end past its deadline (never early); a long-poll's wait is tens of seconds.
    private static let tickNanoseconds: Int64 = 100_000_000
    private static let origin = ContinuousClock.now

    private var devicesByTick: [Tick: Set<String>] = [:]
    private(set) var count = 0

    /// The earliest tick with a poll, for the timer.
    var earliest: Tick? { devicesByTick.keys.min() }

    static func instant(of tick: Tick) -> ContinuousClock.Instant { origin + .nanoseconds(tick * tickNanoseconds) }

    /// Files the device's poll under the first tick at or after `deadline`, which it returns.
    mutating func insert(_ deviceID: String, at deadline: ContinuousClock.Instant) -> Tick {
        let (whole, remainder) = Self.ticks(to: deadline)
        let tick = remainder > 0 ? whole + 1 : whole
        if devicesByTick[tick, default: []].insert(deviceID).inserted { count += 1 }
        return tick
    }

    mutating func remove(_ deviceID: String, at tick: Tick) {
        guard devicesByTick[tick]?.remove(deviceID) != nil else { return }
        count -= 1
        if devicesByTick[tick]?.isEmpty == true { devicesByTick[tick] = nil }
    }

    /// Takes out and returns the devices whose polls' ticks have come by `now`.
    mutating func removeDue(now: ContinuousClock.Instant) -> [String] {
        let current = Self.ticks(to: now).whole
        var due: [String] = []
        for tick in devicesByTick.keys.filter({ $0 <= current }) {
            due += devicesByTick.removeValue(forKey: tick) ?? []
        }
        count -= due.count
        return due
    }

    /// Whole ticks from the origin to `instant`, rounded down, and the nanoseconds past the last of them.
    private static func ticks(to instant: ContinuousClock.Instant) -> (whole: Tick, remainder: Int64) {
        let nanoseconds = origin.duration(to: instant).wholeNanoseconds
        let remainder = (nanoseconds % tickNanoseconds + tickNanoseconds) % tickNanoseconds
        return ((nanoseconds - remainder) / tickNanoseconds, remainder)
    }
}

extension Duration {
    /// Whole nanoseconds, rounded toward zero.
    var wholeNanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }
}
