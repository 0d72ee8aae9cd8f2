/// Exponential backoff with full jitter, so many agents restarting together do not hit the relay in step.
struct Backoff: Sendable {
    let initial: Double
    let maximum: Double
    private(set) var attempt = 0

    init(initial: Double, maximum: Double) {
        self.initial = initial
        self.maximum = maximum
    }

    /// The next delay in seconds: random in [ceiling/2, ceiling], the ceiling doubling per failure up to `maximum`.
    mutating func next() -> Double {
        let ceiling = min(maximum, initial * Double(1 << min(attempt, 30)))
        attempt += 1
        return Double.random(in: (ceiling / 2)...ceiling)
    }

    /// After a success: the next failure starts from `initial` again.
    mutating func reset() { attempt = 0 }
}

extension Backoff {
    /// The configured backoff (`backoff_initial_seconds`, `backoff_max_seconds`), read when a run of failures begins so
    /// a reload's timings apply from the next one.
    init(_ config: AgentConfig) {
        self.init(initial: config.backoffInitialSeconds, maximum: config.backoffMaxSeconds)
    }
}
