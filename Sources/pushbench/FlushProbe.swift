import Foundation

/// This disk's fdatasync latency now, which moves every durable figure and changes by the day on this VM: 300 × 4 KiB
/// written and flushed back to back (as `scripts/bench-relay/common.sh` measures it beside the relay's tables), then
/// 300 more each after a 4 ms pause, as a push sent one at a time finds the disk: here a flush after a pause took up
/// to three times as long.
enum FlushProbe {
    static func line(directory: String) throws -> String {
        let path = directory + "/fdatasync-probe"
        let file = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard file >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
        defer {
            close(file)
            unlink(path)
        }
        let page = [UInt8](repeating: UInt8(ascii: "x"), count: 4096)
        func flushes(pausing pause: useconds_t) -> [Double] {
            (0..<300).map { _ in
                _ = page.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
                let start = ContinuousClock.now
                fdatasync(file)
                let took = (ContinuousClock.now - start).milliseconds
                if pause > 0 { usleep(pause) }
                return took
            }.sorted()
        }
        let backToBack = flushes(pausing: 0), afterAPause = flushes(pausing: 4000)
        func figures(_ sorted: [Double]) -> String {
            String(format: "p50 %.2f ms, p99 %.2f ms", sorted[149], sorted[296])
        }
        return "fdatasync here: \(figures(backToBack)) back to back; \(figures(afterAPause)) after a 4 ms pause"
    }
}
