#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's limit on open file descriptors (RLIMIT_NOFILE). Every connection is one, so a server's soft
/// limit bounds its connections; the traditional soft default of 1024 is far below what a server needs, and
/// the hard limit is there to be taken (systemd's own default is 1024 soft, 524288 hard, for this reason).
public struct OpenFileLimit: Sendable, Equatable {
    public var soft: Int
    public var hard: Int

    public static var current: OpenFileLimit {
        var limit = rlimit()
        guard getrlimit(resourceLimitNoFile, &limit) == 0 else { return OpenFileLimit(soft: 1024, hard: 1024) }
        return OpenFileLimit(soft: Int(clamping: limit.rlim_cur), hard: Int(clamping: limit.rlim_max))
    }

    /// Raises the soft limit to the hard one, as many daemons do at start. Returns the limit before and after, or
    /// nil when there was nothing to raise. Nothing is attempted when soft already equals hard, which is also what
    /// keeps this quiet under units whose system-call filter refuses setrlimit (they set `LimitNOFILE=`).
    @discardableResult
    public static func raiseSoftToHard() -> (before: OpenFileLimit, after: OpenFileLimit)? {
        var limit = rlimit()
        guard getrlimit(resourceLimitNoFile, &limit) == 0, limit.rlim_cur < limit.rlim_max else { return nil }
        let before = current
        limit.rlim_cur = limit.rlim_max
        guard setrlimit(resourceLimitNoFile, &limit) == 0 else { return nil }
        return (before, current)
    }

    #if canImport(Glibc)
    private static let resourceLimitNoFile = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resourceLimitNoFile = RLIMIT_NOFILE
    #endif
}
