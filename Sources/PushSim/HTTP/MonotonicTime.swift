import Foundation

/// CLOCK_MONOTONIC in nanoseconds: one clock for every process on the machine, so that a time pushsim reports can be
/// set against one pushbench takes.
public enum MonotonicTime {
    public static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}
