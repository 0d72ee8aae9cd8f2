import Foundation
import Logging
import ServiceLifecycle

/// Gives the memory of a storm of connections back to the system once it has passed. glibc keeps what is freed in
/// its arenas: after 10,000 long-polls closed, the relay stayed at its peak (118 MiB, from 39) until `malloc_trim(0)`,
/// which brought it to 65 MiB (docs/benchmarks.md). Trimming walks every arena, so it runs only after the open
/// connections fell by `drop` from their highest since the last trim, not on a timer.
struct MemoryReturn: Service {
    static let checkInterval = Duration.seconds(2)

    /// A sixteenth of the connection limit (4,092 under the unit's), so that only a storm's end is worth a trim.
    static func drop(connectionLimit: Int) -> Int { max(64, connectionLimit / 16) }

    let openConnections: @Sendable () -> Int
    let drop: Int
    let metrics: RelayMetrics
    let logger: Logger

    private typealias MallocTrim = @convention(c) (Int) -> Int32

    /// glibc's, looked up at run time: Swift's Glibc module does not declare it (malloc.h); nil on another libc.
    private static let mallocTrim: MallocTrim? = dlsym(dlopen(nil, RTLD_NOW), "malloc_trim")
        .map { unsafeBitCast($0, to: MallocTrim.self) }

    func run() async {
        guard let trim = Self.mallocTrim else { return }
        await cancelWhenGracefulShutdown {
            var peak = openConnections()
            while (try? await Task.sleep(for: Self.checkInterval)) != nil {
                let open = openConnections()
                peak = max(peak, open)
                guard peak - open >= drop else { continue }
                _ = trim(0)
                metrics.add(.memoryTrims)
                logger.debug("open connections fell from \(peak) to \(open): freed memory given back to the system")
                peak = open
            }
        }
    }
}
