import Foundation
import Synchronization

/// Runs one piece of work at a time and turns the others away at once, rather than queueing them: each backup or
/// restore holds scrypt's memory (up to `BackupFile.KDFParameters.maximumMemoryBytes`) and a core, so letting
/// them pile up is what a flood of requests would want.
final class OneAtATime: Sendable {
    private let running = Mutex<String?>(nil)

    /// Runs `body` unless other work is running; then throws `busy`, naming what runs (`what` of the first).
    func run<T: Sendable>(_ what: String, _ body: () async throws -> T) async throws -> T {
        let busy = running.withLock { running -> String? in
            if let running { return running }
            running = what
            return nil
        }
        if let busy {
            throw ServiceError(.busy, "another backup or restore is running (\(busy)): try again when it has finished")
        }
        defer { running.withLock { $0 = nil } }
        return try await body()
    }
}
