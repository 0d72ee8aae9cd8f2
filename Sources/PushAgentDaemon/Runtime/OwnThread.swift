import Foundation

/// Runs blocking or CPU-heavy work (PAM, which may sleep for seconds; scrypt) on a thread of its own, not on one of
/// the cooperative pool's few threads, which serve every other request meanwhile.
func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}

func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await onOwnThread { Result(catching: work) }.get()
}
